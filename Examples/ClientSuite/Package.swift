// swift-tools-version:6.0
// The client's tests against a running Catbird server, in a package of their own so that they
// build with the client libraries only (CatbirdAPI, CatbirdAppSupport) and run wherever those
// do: on Linux (scripts/test, through run.sh), on macOS and in the iOS simulator (the GitHub
// Actions workflow, .github/workflows/client.yml). The server's address comes from
// CATBIRD_TEST_URL (default http://127.0.0.1:8080; in the simulator, pass
// TEST_RUNNER_CATBIRD_TEST_URL to xcodebuild).
import PackageDescription

let package = Package(
    name: "ClientSuite",
    platforms: [.macOS(.v12), .iOS(.v13)],
    dependencies: [.package(name: "Catbird", path: "../..")],
    targets: [
        .testTarget(
            name: "ClientSuiteTests",
            dependencies: [
                .product(name: "CatbirdAPI", package: "Catbird"),
                .product(name: "CatbirdAppSupport", package: "Catbird"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

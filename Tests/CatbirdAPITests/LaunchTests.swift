import CatbirdAPI
import CatbirdAppSupport
import Foundation
import XCTest

/// `launchArguments` and `launchEnvironment`, and their names shared with CatbirdAppSupport.
final class LaunchTests: CatbirdTestCase {
    private let url = URL(string: "http://127.0.0.1:9123")!

    func testLaunchArgumentsAndEnvironmentWithoutParallelId() {
        let catbird = Catbird(url: url)
        XCTAssertEqual(catbird.launchArguments, ["-catbird_url", "http://127.0.0.1:9123"])
        XCTAssertEqual(catbird.launchEnvironment, ["CATBIRD_URL": "http://127.0.0.1:9123"])
        XCTAssertEqual(Catbird(url: url, parallelId: "").launchArguments, ["-catbird_url", "http://127.0.0.1:9123"], "empty id = default tenant")
        XCTAssertEqual(Catbird.localhost.absoluteString, "http://127.0.0.1:8080")
        XCTAssertEqual(Catbird().launchArguments, ["-catbird_url", "http://127.0.0.1:8080"])
    }

    func testLaunchArgumentsAndEnvironmentWithParallelId() {
        let catbird = Catbird(url: url, parallelId: "shard 1")
        XCTAssertEqual(catbird.launchArguments, ["-catbird_url", "http://127.0.0.1:9123", "-catbird_parallel_id", "shard 1"])
        XCTAssertEqual(catbird.launchEnvironment, ["CATBIRD_URL": "http://127.0.0.1:9123", "CATBIRD_PARALLEL_ID": "shard 1"])
        catbird.parallelId = nil
        XCTAssertEqual(catbird.launchEnvironment, ["CATBIRD_URL": "http://127.0.0.1:9123"])
    }

    /// The names are the contract with the app-side helper.
    func testLaunchKeysEqualCatbirdAppSupports() {
        XCTAssertEqual(Catbird.LaunchKeys.urlArgument, "-catbird_url")
        XCTAssertEqual(Catbird.LaunchKeys.parallelIdArgument, "-catbird_parallel_id")
        XCTAssertEqual(Catbird.LaunchKeys.urlEnvironment, "CATBIRD_URL")
        XCTAssertEqual(Catbird.LaunchKeys.parallelIdEnvironment, "CATBIRD_PARALLEL_ID")
        XCTAssertEqual(Catbird.LaunchKeys.urlArgument, CatbirdAppConfiguration.LaunchKeys.urlArgument)
        XCTAssertEqual(Catbird.LaunchKeys.parallelIdArgument, CatbirdAppConfiguration.LaunchKeys.parallelIdArgument)
        XCTAssertEqual(Catbird.LaunchKeys.urlEnvironment, CatbirdAppConfiguration.LaunchKeys.urlEnvironment)
        XCTAssertEqual(Catbird.LaunchKeys.parallelIdEnvironment, CatbirdAppConfiguration.LaunchKeys.parallelIdEnvironment)
        XCTAssertEqual(CatbirdAction.parallelIdHeaderField, CatbirdAppConfiguration.parallelIdHeader)
    }

    /// What the test hands over, the app reads back: through arguments and through the environment.
    func testAppSupportReadsWhatTheClientHandsOver() throws {
        for parallelId in [nil, "shard-7"] {
            let catbird = Catbird(url: url, parallelId: parallelId)
            let fromArguments = try XCTUnwrap(CatbirdAppConfiguration(arguments: ["/path/App"] + catbird.launchArguments, environment: [:]))
            XCTAssertEqual(fromArguments.serverURL.absoluteString, url.absoluteString)
            XCTAssertEqual(fromArguments.parallelId, parallelId)
            let fromEnvironment = try XCTUnwrap(CatbirdAppConfiguration(arguments: ["/path/App"], environment: catbird.launchEnvironment))
            XCTAssertEqual(fromEnvironment.serverURL.absoluteString, url.absoluteString)
            XCTAssertEqual(fromEnvironment.parallelId, parallelId)
        }
    }
}

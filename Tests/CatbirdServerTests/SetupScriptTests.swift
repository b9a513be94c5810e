import CatbirdTestSupport
import Foundation
import XCTest

/// `source scripts/setup.sh` (as scripts/run, scripts/test and a developer's shell do) installs
/// and finds what the build needs without changing the caller's shell options.
final class SetupScriptTests: XCTestCase {
    /// Regression: it ran `set -euo pipefail` in the caller's shell, so an interactive shell
    /// that sourced it ended at its next failing command, and a script without `-u` failed on
    /// its first unset variable.
    func testSourcingKeepsTheCallersShellOptions() throws {
        for options in ["+e +u +o pipefail", "-e -u -o pipefail", "-e +u +o pipefail +o noglob", "+e -u -o noglob"] {
            let script = """
                set \(options); before=$(set +o); source scripts/setup.sh; after=$(set +o)
                [ "$before" = "$after" ] && command -v swift >/dev/null && echo kept
                """
            let result = try ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), ["-c", script], in: ProcessRunner.repositoryRoot, seconds: 600)
            XCTAssertEqual(result.stdout, "kept\n", "set \(options): \(result.output)")
        }
    }
}

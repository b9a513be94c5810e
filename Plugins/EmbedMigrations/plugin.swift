// EmbedMigrations: a build-tool plugin that compiles the package's `migrations/*.sql` files
// into the target that uses it (CatbirdDomain, which owns the schema), as `Schema.migrations`.
//
// The work (listing, validation, code generation) is done by the `EmbedMigrationsTool`
// executable, which lists the folder itself each time it runs. Why not pass it the file list:
// SwiftPM caches its build plan and re-runs plugins only when it re-plans (when a target's
// source folder, Package.swift, the build flags or the environment change), not when
// `migrations/` changes. A file list baked into the plan would therefore go stale, and a
// removed or renamed file would then fail the build with "missing inputs". The folder itself
// is the command's input instead: adding, removing or renaming a file changes the folder's
// modification time, so the tool runs again on the next build and sees the current files.
// Limitation: editing an existing file in place, without rewriting it through a rename, as
// git and most editors do, does not touch the folder; `touch migrations` then forces a rerun.

import Foundation
import PackagePlugin

@main
struct EmbedMigrations: BuildToolPlugin {
    /// Returns one build command, `EmbedMigrationsTool <output.swift> <package>/migrations`,
    /// whose input is the `migrations` folder (when it exists) and whose single output is
    /// `EmbeddedMigrations.swift` in the plugin's work directory, compiled into `target`.
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let migrations = context.package.directoryURL
            .appendingPathComponent("migrations", isDirectory: true)
        let output = context.pluginWorkDirectoryURL
            .appendingPathComponent("EmbeddedMigrations.swift", isDirectory: false)
        let tool = try context.tool(named: "EmbedMigrationsTool")

        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: migrations.path, isDirectory: &isDirectory)
            && isDirectory.boolValue
        return [
            .buildCommand(
                displayName: "Embedding SQL migrations into \(target.name)",
                executable: tool.url,
                arguments: [output.path, migrations.path],
                inputFiles: exists ? [migrations] : [],
                outputFiles: [output]
            ),
        ]
    }
}

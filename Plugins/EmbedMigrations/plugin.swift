// EmbedMigrations: a build-tool plugin that compiles the package's `migrations/*.sql` files
// into the target that uses it (CatbirdStorage), as `Migration.embedded`.
//
// SwiftPM runs build-tool plugins on every build, so the list of input files is read afresh
// each time: a new `NNNN_name.sql` file changes the command's inputs and arguments, and the
// generated source is rebuilt. The work itself (validation, code generation) is done by the
// `EmbedMigrationsTool` executable; see its `main.swift` for the rules a file name must follow.

import Foundation
import PackagePlugin

@main
struct EmbedMigrations: BuildToolPlugin {
    /// Returns one build command: `EmbedMigrationsTool <output.swift> <file.sql>...`, whose
    /// inputs are every `*.sql` file directly inside `<package root>/migrations/` (sorted by
    /// name; other files are ignored) and whose single output is `EmbeddedMigrations.swift`
    /// in the plugin's work directory. A missing `migrations/` folder yields no files, which
    /// the tool turns into an empty `Migration.embedded`.
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let migrationsDirectory = context.package.directoryURL
            .appendingPathComponent("migrations", isDirectory: true)
        let sqlFiles = try Self.sqlFiles(in: migrationsDirectory)
        let output = context.pluginWorkDirectoryURL
            .appendingPathComponent("EmbeddedMigrations.swift", isDirectory: false)
        let tool = try context.tool(named: "EmbedMigrationsTool")

        return [
            .buildCommand(
                displayName: "Embedding \(sqlFiles.count) SQL migration(s) into \(target.name)",
                executable: tool.url,
                arguments: [output.path] + sqlFiles.map(\.path),
                inputFiles: sqlFiles,
                outputFiles: [output]
            ),
        ]
    }

    /// The `*.sql` regular files directly inside `directory`, sorted by file name; `[]` when
    /// the directory does not exist. Throws when it exists but cannot be listed.
    private static func sqlFiles(in directory: URL) throws -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory),
              isDirectory.boolValue
        else { return [] }
        return try FileManager.default
            .contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}

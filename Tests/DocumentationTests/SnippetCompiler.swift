import BriefcaseTestSupport
import Foundation

/// `swiftc -typecheck` of one snippet as a file of its own — so it sees exactly the modules it
/// imports — against the library modules SwiftPM built for these tests (`swift test` builds every
/// library product this target depends on) and the C modules' maps in `Sources/`.
enum SnippetCompiler {
    /// The compiler: `SWIFT_EXEC`, else `swiftc` on the PATH.
    static let swiftc: URL? = {
        let environment = ProcessInfo.processInfo.environment
        if let given = environment["SWIFT_EXEC"], FileManager.default.isExecutableFile(atPath: given) {
            return URL(fileURLWithPath: given)
        }
        for folder in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("swiftc")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }  // (run by this name: it picks the driver)
        }
        return nil
    }()

    /// The folder of the built `.swiftmodule`s: next to the test bundle (`Modules/` since Swift 6).
    static let modules: URL? = {
        var folders: [URL] = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        for bundle in Bundle.allBundles { folders.append(bundle.bundleURL.deletingLastPathComponent()) }
        folders.append(SamplePaths.repository.appendingPathComponent(".build/debug"))
        for folder in folders {
            for candidate in [folder.appendingPathComponent("Modules"), folder]
            where FileManager.default.fileExists(atPath: candidate.appendingPathComponent("BriefcaseKit.swiftmodule").path) {
                return candidate
            }
        }
        return nil
    }()

    /// Whether snippets can be compiled here (a compiler and the built modules).
    static var available: Bool { swiftc != nil && modules != nil }

    /// The folders of the package's C module maps (`Sources/X/module.modulemap`, `Sources/X/include/module.modulemap`).
    static let moduleMapFolders: [URL] = {
        let sources = SamplePaths.repository.appendingPathComponent("Sources")
        let targets = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        return targets.sorted().flatMap { target in
            [sources.appendingPathComponent(target), sources.appendingPathComponent(target).appendingPathComponent("include")]
        }.filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("module.modulemap").path) }
    }()

    /// The compiler's arguments for `file`: a manifest against PackageDescription at its tools
    /// version, anything else against the built modules, in Swift 6 mode.
    static func arguments(for snippet: Snippet, file: URL) -> [String] {
        var arguments = ["-typecheck", "-swift-version", "6"]
        if snippet.imports.contains("PackageDescription") {
            let toolchain = swiftc!.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            arguments += ["-I", toolchain.appendingPathComponent("lib/swift/pm/ManifestAPI").path,
                          "-package-description-version", snippet.toolsVersion ?? "6.0"]
        } else {
            arguments += ["-I", modules!.path]
            for folder in moduleMapFolders { arguments += ["-I", folder.path] }
        }
        return arguments + [file.path]
    }

    /// Type-checks `snippet`; returns the compiler's exit status and what it printed.
    static func typecheck(_ snippet: Snippet) throws -> (status: Int32, output: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("briefcase-snippet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(snippet.imports.contains("PackageDescription") ? "Package.swift" : "main.swift")
        try Data(snippet.text.utf8).write(to: file)
        let process = Process()
        process.executableURL = swiftc
        process.arguments = arguments(for: snippet, file: file)
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: printed, as: UTF8.self))
    }
}

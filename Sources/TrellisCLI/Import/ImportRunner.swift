import Foundation
import Trellis
import TrellisModelFile

/// Runs one `trellis import`: checks everything that can be checked before the store is
/// touched (model, entity, attributes, inputs, store location), then imports every input
/// in one transaction and renders the summary.
struct ImportRunner {
    let options: ImportCommand.Options
    let environment: CommandEnvironment

    func run() throws -> String {
        let file = try ModelLoading.load(options.modelPath, bindings: options.bindingsPath, environment: environment)
        let entity = try ModelLoading.entity(options.entity, in: file.model, modelPath: options.modelPath)
        if let name = options.keyAttribute {
            _ = try ModelLoading.attribute(name, of: entity, option: "--key-attribute")
        }
        for input in options.inputs { try InputCheck.check(input) }
        let storeURL = environment.url(for: options.storePath)
        try StoreLocation.check(storeURL, path: options.storePath)
        throw CommandError(.store, "importing needs the object graph and the SQLite store (not yet available)")
    }
}

/// Checks an input exists and is a readable regular file before anything is imported.
enum InputCheck {
    static func check(_ input: InputFile) throws {
        guard let url = input.url else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CommandError(.invalidInput, "\(input.name): no such file")
        }
        if isDirectory.boolValue { throw CommandError(.invalidInput, "\(input.name): is a directory, not a JSON file") }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw CommandError(.invalidInput, "\(input.name): permission denied")
        }
    }
}

/// Checks a store path can be opened or created, with a message naming what is wrong.
enum StoreLocation {
    static func check(_ url: URL, path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw CommandError(.store, "\(path): is a directory, not a store") }
            return
        }
        let parent = url.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandError(.store, "\(path): cannot create the store: directory '\(parent.relativePath)' does not exist")
        }
    }
}

import Foundation
import Trellis

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

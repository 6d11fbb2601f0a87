import Foundation
import Trellis

extension BindingDeclarations {
    /// The declarations as a bindings file (the `bindings` section of a model file on its
    /// own, as ``ModelLoader/readBindings(from:)`` reads it): pretty-printed UTF-8 JSON,
    /// names sorted, ending with a newline.
    public func fileData() -> Data {
        Data(ModelFileJSON.prettyText(ModelFileEncoder.bindings(self)).utf8)
    }

    /// Writes ``fileData()`` to `url`, as ``ModelFile/write(to:)`` writes a model file.
    /// - Throws: ``ModelFileError`` `.writeFailed` naming the file (`url.relativePath`) and the reason.
    public func writeFile(to url: URL) throws {
        do {
            try OutputFile.write(fileData(), to: url)
        } catch {
            throw ModelFileError(.writeFailed, file: url.relativePath, message: "cannot write: \(error.reason)")
        }
    }
}

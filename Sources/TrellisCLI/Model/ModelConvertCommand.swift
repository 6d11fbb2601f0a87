import Foundation
import Trellis
import TrellisModelFile

/// `trellis model convert <input> [--to json|xcdatamodel] [-o <output>]`: a model in the
/// other format (Trellis JSON ↔ Core Data).
enum ModelConvertCommand: LeafCommand {
    static let input = ArgumentKey<String>("input", help: "The model to convert.")
    static let to = OptionKey<ModelFileFormat?>("--to", valueName: "format", help: "The output format.")
    static let output = OptionKey<String?>(
        "-o", valueName: "output",
        help: "Where to write: a .json file, a .xcdatamodeld bundle, a .xcdatamodel directory, or - for standard output.")

    static let spec = CommandSpec(
        name: "model convert",
        abstract: "Convert a model between the Trellis JSON format and a Core Data model.",
        discussion: """
            Reads a Trellis JSON model file, a .xcdatamodeld bundle or a .xcdatamodel, and writes \
            the other format (or the one --to names, or the one -o's extension implies). Core \
            Data settings Trellis does not use travel in user info (coreData.* keys), so \
            converting to JSON and back loses nothing. JSON goes to standard output without -o; \
            a Core Data model goes to NAME.xcdatamodeld in the current directory.
            """,
        arguments: [input],
        options: [to, output, CommonOptions.bindings, ModelCommand.version])

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        try convert(arguments, environment: context.environment, stdout: &context.stdout, stderr: &context.stderr)
    }

    private static func convert(
        _ arguments: ParsedArguments, environment: CommandEnvironment,
        stdout: inout some TextOutputStream, stderr: inout some TextOutputStream
    ) throws {
        let inputPath = arguments[input]
        let outputPath = arguments[output]
        let target: ModelFileFormat
        if let format = arguments[to] {
            target = format
        } else if let outputPath, outputPath != "-" {
            let url = URL(fileURLWithPath: outputPath)
            guard ["json", "xcdatamodeld", "xcdatamodel"].contains(url.pathExtension) else {
                throw UsageError(
                    "cannot tell the output format from '\(outputPath)': "
                        + "use a .json, .xcdatamodeld or .xcdatamodel path, or --to")
            }
            target = ModelLoader.format(of: url)
        } else {
            target = ModelLoader.format(of: environment.url(for: inputPath)) == .json ? .xcdatamodel : .json
        }

        // A conversion carries the names over whether or not they are bound; unbound ones
        // are reported, since whoever uses the converted model has to bind them.
        let loaded = try ModelCommand.load(inputPath, arguments, environment: environment)
        for warning in loaded.warnings { stderr.write("warning: \(inputPath): \(warning)\n") }
        do {
            try ModelLoader.checkNames(of: loaded.model, bindings: loaded.bindingDeclarations)
        } catch let error as ModelFileError {
            stderr.write(
                "warning: \(inputPath): \(error.message) The converted model names them too: "
                    + "give their bindings with --bindings wherever it is used.\n")
        }

        switch target {
        case .json:
            guard let outputPath, outputPath != "-" else {
                stdout.write(String(decoding: loaded.modelFile.data(), as: UTF8.self))
                return
            }
            do {
                try loaded.modelFile.write(to: environment.url(for: outputPath))
            } catch let error as ModelFileError {
                throw CommandError(.writeFailed, "\(outputPath): \(error.message)")
            }
            stdout.write("wrote \(outputPath): \(ModelCommand.counts(loaded.model))\n")
        case .xcdatamodel:
            if !loaded.bindingDeclarations.isEmpty {
                stderr.write(
                    "warning: a Core Data model has no bindings section; keep the bindings in a file "
                        + "and pass it with --bindings when using the converted model\n")
            }
            for problem in CoreDataModelWriter.xcodeNamingProblems(in: loaded.model) {
                stderr.write("warning: \(problem)\n")
            }
            let writer = CoreDataModelWriter()
            if outputPath == "-" {
                stdout.write(try writer.contents(for: loaded.model))
                return
            }
            let path = outputPath ?? defaultBundleName(for: inputPath)
            let url = environment.url(for: path)
            if ModelLoader.format(of: url) != .xcdatamodel {
                throw UsageError("a Core Data model is written to a .xcdatamodeld or .xcdatamodel path, not '\(path)'")
            }
            let written: CoreDataModelWriter.Written
            do {
                written = try writer.write(loaded.model, to: url)
            } catch var error as CoreDataModelError {
                error.file = error.file.map { ModelLoading.relative($0, to: url, as: path) } ?? path
                throw error
            }
            let version = written.isNewVersion ? written.versionName.map { " (new version \($0), now current)" } ?? "" : ""
            if let label = loaded.model.versionLabel,
                let back = try? CoreDataModelReader.read(from: url, version: written.versionName), back.model.versionLabel != label
            {
                stderr.write(
                    "warning: the version label '\(label)' is lost: it equals the name of the version written, "
                        + "which a Core Data model records as its label only in a bundle with several versions\n")
            }
            stdout.write("wrote \(path)\(version): \(ModelCommand.counts(loaded.model))\n")
        }
    }

    /// `Characters.xcdatamodeld` for `Characters.json`, `model.json`, …
    private static func defaultBundleName(for inputPath: String) -> String {
        var name = URL(fileURLWithPath: inputPath).deletingPathExtension().lastPathComponent
        if name.isEmpty || name == "contents" { name = "Model" }
        return name + ".xcdatamodeld"
    }
}

extension ModelFileFormat: OptionValue {}

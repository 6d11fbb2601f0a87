import Foundation
import Trellis
import TrellisModelFile

/// `trellis model convert|show`: converts model files between the Trellis JSON model
/// format and Core Data's `.xcdatamodeld`, and prints a readable summary of a model.
enum ModelCommand {
    static let spec = CommandSpec(
        name: "model",
        abstract: "Convert a model between Trellis JSON and Core Data, or summarise it.",
        discussion: """
            Subcommands: 'convert' (Trellis JSON ↔ .xcdatamodeld) and 'show' (entities, \
            attributes with types and key paths, relationships, identity). See \
            'trellis model <subcommand> --help'.
            """,
        arguments: [ArgumentSpec(valueName: "subcommand", help: "convert or show.", isRequired: true)])

    static let subcommands = [convertSpec, showSpec]

    static let convertSpec = CommandSpec(
        name: "model convert",
        abstract: "Convert a model between the Trellis JSON format and a Core Data model.",
        discussion: """
            Reads a Trellis JSON model file, a .xcdatamodeld bundle or a .xcdatamodel, and writes \
            the other format (or the one --to names, or the one -o's extension implies). Core \
            Data settings Trellis does not use travel in user info (coreData.* keys), so \
            converting to JSON and back loses nothing. JSON goes to standard output without -o; \
            a Core Data model goes to NAME.xcdatamodeld in the current directory.
            """,
        arguments: [ArgumentSpec(valueName: "input", help: "The model to convert.", isRequired: true)],
        options: [
            OptionSpec(name: "--to", valueName: "format", help: "The output format.",
                       allowedValues: ModelFileFormat.allCases.map(\.rawValue)),
            OptionSpec(name: "-o", valueName: "output",
                       help: "Where to write: a .json file, a .xcdatamodeld bundle, a .xcdatamodel directory, or - for standard output."),
            bindingsOption,
            versionOption,
        ])

    static let showSpec = CommandSpec(
        name: "model show",
        abstract: "Summarise a model: entities, attributes, relationships, identity.",
        arguments: [ArgumentSpec(valueName: "model", help: "A Trellis JSON model file, .xcdatamodeld or .xcdatamodel.",
                                 isRequired: true)],
        options: [bindingsOption, versionOption])

    static let bindingsOption = ModelLoading.bindingsOption
    static let versionOption = OptionSpec(
        name: "--version", valueName: "name", help: "The version of a .xcdatamodeld to read (default: its current version).")

    // MARK: - Dispatch

    static func run(arguments: [String], environment: CommandEnvironment,
                    stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        guard let first = arguments.first else {
            stderr.write(UsageError(spec: spec, message: "missing subcommand; expected convert or show").text)
            return ExitStatus.usage
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "--help", "-h", "help":
            stdout.write(spec.helpText)
            return ExitStatus.success
        case "convert":
            return CommandRunner.run(convertSpec, rest, stdout: &stdout, stderr: &stderr) { parsed, out, err in
                try convert(parsed, environment: environment, stdout: &out, stderr: &err)
            }
        case "show":
            return CommandRunner.run(showSpec, rest, stdout: &stdout, stderr: &stderr) { parsed, out, _ in
                try show(parsed, environment: environment, stdout: &out)
            }
        default:
            stderr.write(UsageError(spec: spec, message: "unknown subcommand '\(first)'; expected convert or show").text)
            return ExitStatus.usage
        }
    }

    // MARK: - convert

    private static func convert(_ parsed: ParsedArguments, environment: CommandEnvironment,
                                stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) throws {
        let inputPath = parsed.positionals.first ?? ""
        let outputPath = parsed.value("-o")
        let target: ModelFileFormat
        if let text = parsed.value("--to"), let format = ModelFileFormat(rawValue: text) {
            target = format
        } else if let outputPath, outputPath != "-" {
            let url = URL(fileURLWithPath: outputPath)
            guard ["json", "xcdatamodeld", "xcdatamodel"].contains(url.pathExtension) else {
                throw UsageError(spec: convertSpec, message: "cannot tell the output format from '\(outputPath)': "
                                 + "use a .json, .xcdatamodeld or .xcdatamodel path, or --to")
            }
            target = ModelLoader.format(of: url)
        } else {
            target = ModelLoader.format(of: environment.url(for: inputPath)) == .json ? .xcdatamodel : .json
        }

        // A conversion carries the names over whether or not they are bound; unbound ones
        // are reported, since whoever uses the converted model has to bind them.
        let loaded = try load(inputPath, parsed, environment: environment)
        for warning in loaded.warnings { stderr.write("warning: \(inputPath): \(warning)\n") }
        do {
            try ModelLoader.checkNames(of: loaded.model, bindings: loaded.bindingDeclarations)
        } catch let error as ModelFileError {
            stderr.write("warning: \(inputPath): \(error.message) The converted model names them too: "
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
            stdout.write("wrote \(outputPath): \(counts(loaded.model))\n")
        case .xcdatamodel:
            if !loaded.bindingDeclarations.isEmpty {
                stderr.write("warning: a Core Data model has no bindings section; keep the bindings in a file "
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
                throw UsageError(spec: convertSpec, message: "a Core Data model is written to a .xcdatamodeld or .xcdatamodel path, not '\(path)'")
            }
            let written: CoreDataModelWriter.Written
            do {
                written = try writer.write(loaded.model, to: url)
            } catch var error as CoreDataModelError {
                error.file = error.file.map { ModelLoading.relative($0, to: url, as: path) }
                throw error
            }
            let version = written.isNewVersion ? written.versionName.map { " (new version \($0), now current)" } ?? "" : ""
            if let label = loaded.model.versionLabel,
               let back = try? CoreDataModelReader.read(from: url, version: written.versionName), back.model.versionLabel != label {
                stderr.write("warning: the version label '\(label)' is lost: it equals the name of the version written, "
                             + "which a Core Data model records as its label only in a bundle with several versions\n")
            }
            stdout.write("wrote \(path)\(version): \(counts(loaded.model))\n")
        }
    }

    /// `Characters.xcdatamodeld` for `Characters.json`, `model.json`, …
    private static func defaultBundleName(for inputPath: String) -> String {
        var name = URL(fileURLWithPath: inputPath).deletingPathExtension().lastPathComponent
        if name.isEmpty || name == "contents" { name = "Model" }
        return name + ".xcdatamodeld"
    }

    /// `3 entities, 8 attributes, 5 relationships`.
    static func counts(_ model: ObjectModel) -> String {
        let attributes = model.entities.reduce(0) { $0 + $1.attributes.count }
        let relationships = model.entities.reduce(0) { $0 + $1.relationships.count }
        return "\(plural(model.entities.count, "entity", "entities")), \(plural(attributes, "attribute", "attributes")), "
            + plural(relationships, "relationship", "relationships")
    }

    static func plural(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }

    // MARK: - Shared

    /// The model at `path` with `--bindings` and `--version`, errors naming the paths as given.
    /// Names need not be bound: `convert` carries them over and `show` lists them.
    static func load(_ path: String, _ parsed: ParsedArguments, environment: CommandEnvironment) throws -> LoadedModel {
        try ModelLoading.read(path, bindingsPath: parsed.value("--bindings"), version: parsed.value("--version"),
                              environment: environment, requiringBoundNames: false)
    }
}

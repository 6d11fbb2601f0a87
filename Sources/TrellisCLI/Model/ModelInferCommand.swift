import Foundation
import Trellis
import TrellisModelFile

/// `trellis model infer FILE… --entity NAME [--at KEYPATH] [--format json|ndjson]
/// [--sample N] [--to json|xcdatamodel] [-o OUTPUT]`: writes the model sample payloads
/// need (docs/ModelInference.md).
enum ModelInferCommand: LeafCommand {
    static let files = ArgumentKey<[String]>(repeating: "file", help: "A sample JSON file.")
    static let sample = OptionKey<SampleCount?>("--sample", valueName: "count", help: "Read only the first N elements of each file.")
    static let to = OptionKey<ModelFileFormat>("--to", valueName: "format", help: "The output format.", default: "json")
    static let output = OptionKey<String?>(
        "-o", valueName: "output",
        help: "Where to write: a .json file, a .xcdatamodeld bundle, a .xcdatamodel directory, or - for standard output.")

    static let spec = CommandSpec(
        name: "model infer",
        abstract: "Infer a model from sample JSON payloads.",
        discussion: """
            Reads the collection in each file (the whole document, or the value at --at: an \
            array of objects, an object, or an object keyed by its members' ids) and writes a \
            model for it: nested objects become related entities, the same shape met in several \
            places is one entity, identities, attribute types and key paths are inferred, every \
            rule as docs/ModelInference.md says. Several files make one model. The same input \
            always gives the same output. JSON goes to standard output without -o (or with --to \
            json); a Core Data model goes to ENTITY.xcdatamodeld, its bindings (if any) beside it.
            """,
        arguments: [files],
        options: [
            CommonOptions.entity.with(help: "The entity of the collection's objects."), ImportCommand.at,
            InputFormat.option, sample, to, output,
        ])

    /// `--sample`: a whole number of elements, 1 or more.
    struct SampleCount: OptionValue {
        let value: Int

        init(optionText text: String) throws(OptionValueError) {
            guard let n = Int(text), n > 0 else { throw .expected("a whole number of elements (1 or more)") }
            value = n
        }
    }

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        try infer(arguments, environment: context.environment, stdout: &context.stdout, stderr: &context.stderr)
    }

    private static func infer(
        _ arguments: ParsedArguments, environment: CommandEnvironment,
        stdout: inout some TextOutputStream, stderr: inout some TextOutputStream
    ) throws {
        let entity = arguments[CommonOptions.entity]
        let outputPath = arguments[output]
        var target = arguments[to]
        if !arguments.isGiven(to), let outputPath, outputPath != "-" {
            target = ModelLoader.format(of: URL(fileURLWithPath: outputPath))
        }
        let inputs = arguments[files].map { InputFile(argument: $0, environment: environment) }
        if inputs.contains(where: \.isStandardInput) {
            throw UsageError("'-' (standard input) is not read by 'model infer'; give the sample files")
        }
        let reading = InferenceReading(
            inputs: inputs, at: arguments[ImportCommand.at],
            format: arguments[InputFormat.option], entity: entity,
            sample: arguments[sample]?.value)
        let inferred = try reading.infer()
        let file = inferred.file
        let summary = "\(ModelCommand.counts(file.model)), inferred from \(ModelCommand.plural(inputs.count, "file", "files"))"

        switch target {
        case .json:
            guard let outputPath, outputPath != "-" else {
                stdout.write(String(decoding: file.data(), as: UTF8.self))
                return
            }
            do {
                try file.write(to: environment.url(for: outputPath))
            } catch let error as ModelFileError {
                throw CommandError(.writeFailed, "\(outputPath): \(error.message)")
            }
            stdout.write("wrote \(outputPath): \(summary)\n")
        case .xcdatamodel:
            let writer = CoreDataModelWriter()
            if outputPath == "-" {
                stdout.write(try writer.contents(for: file.model))
                if !file.bindingDeclarations.isEmpty {
                    stderr.write("warning: the model uses bindings a Core Data model cannot hold; write it with -o to get them in a file\n")
                }
                return
            }
            let path = outputPath ?? entity + ".xcdatamodeld"
            let url = environment.url(for: path)
            guard ModelLoader.format(of: url) == .xcdatamodel else {
                throw UsageError("a Core Data model is written to a .xcdatamodeld or .xcdatamodel path, not '\(path)'")
            }
            do {
                _ = try writer.write(file.model, to: url)
            } catch var error as CoreDataModelError {
                error.file = error.file.map { ModelLoading.relative($0, to: url, as: path) } ?? path
                throw error
            }
            var bindingsNote = ""
            if !file.bindingDeclarations.isEmpty {
                let bindingsPath = (path as NSString).deletingPathExtension + "-bindings.json"
                do {
                    try file.bindingDeclarations.writeFile(to: environment.url(for: bindingsPath))
                } catch let error as ModelFileError {
                    throw CommandError(.writeFailed, "\(bindingsPath): \(error.message)")
                }
                bindingsNote = "; its bindings in \(bindingsPath) (pass it with --bindings)"
            }
            stdout.write("wrote \(path): \(summary)\(bindingsNote)\n")
        }
    }
}

import Foundation
import Trellis
import TrellisModelFile

/// `trellis model show MODEL|STORE [--format text|mermaid|dot]`: the summary on standard
/// output, or an entity–relationship diagram of the model (``ModelDiagram``). Names that
/// are not bound are reported in the summary instead of failing.
enum ModelShowCommand: LeafCommand {
    static let model = ArgumentKey<String>(
        "model", help: "A Trellis JSON model file, .xcdatamodeld, .xcdatamodel, or a store (its recorded model).")

    /// What `model show` writes.
    enum Format: String, CaseIterable, OptionValue {
        /// The readable summary (``ModelSummary``).
        case text
        /// A Mermaid erDiagram (``ModelDiagram/mermaid``).
        case mermaid
        /// A Graphviz DOT graph (``ModelDiagram/dot``).
        case dot
    }

    static let format = OptionKey<Format>(
        "--format", valueName: "format",
        help: "text: the summary; mermaid: a Mermaid erDiagram; dot: a Graphviz graph (dot -Tsvg).", default: "text")

    static let spec = CommandSpec(
        name: "model show",
        abstract: "Summarise a model (entities, attributes, relationships, identity), or draw it.",
        arguments: [model],
        options: [format, CommonOptions.bindings, ModelCommand.version])

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        let path = arguments[model]
        let loaded = try ModelCommand.load(path, arguments, environment: context.environment)
        // A PostgreSQL store is named without its password.
        let name = StoreLocation(path, environment: context.environment).name
        switch arguments[format] {
        case .text: context.stdout.write(ModelSummary(loaded: loaded, path: name).text)
        case .mermaid: context.stdout.write(ModelDiagram(model: loaded.model).mermaid)
        case .dot: context.stdout.write(ModelDiagram(model: loaded.model).dot)
        }
    }
}

/// The readable summary `trellis model show` prints:
///
///     model: Characters.xcdatamodeld (Core Data, version Characters)
///     3 entities, 8 attributes, 5 relationships
///
///     entity Character
///       identity: identifier (uniquing)
///       attribute identifier: integer64, required, default 0, key path id, transformer GrootTests.Transformer
///       relationship powers: to-many ordered Power, inverse characters, key path powers
///     …
///     names:
///       value transformer GrootTests.Transformer: not bound (entity Character, attribute identifier; …)
struct ModelSummary {
    let loaded: LoadedModel
    let path: String

    var text: String {
        let model = loaded.model
        var out = "model: \(path) (\(formatDescription))\n"
        if let label = model.versionLabel, label != loaded.versionName { out += "version label: \(label)\n" }
        if model.keyConvention != .none { out += "key convention: \(model.keyConvention.rawValue)\n" }
        out += ModelCommand.counts(model) + "\n"
        for entity in model.resolvedEntities {
            out += "\n" + entitySection(entity)
        }
        out += "\n" + namesSection
        if !loaded.warnings.isEmpty {
            out += "\nwarnings:\n" + loaded.warnings.map { "  \($0)\n" }.joined()
        }
        return out
    }

    private var formatDescription: String {
        if loaded.store != nil { return "the model recorded in the store" }
        switch loaded.format {
        case .json: return "Trellis JSON model"
        case .xcdatamodel: return loaded.versionName.map { "Core Data, version \($0)" } ?? "Core Data"
        }
    }

    // MARK: - Entities

    private func entitySection(_ entity: ResolvedEntity) -> String {
        let declaration = entity.declaration
        var traits: [String] = []
        if entity.isAbstract { traits.append("abstract") }
        if let parent = declaration.parentName { traits.append("parent \(parent)") }
        if !entity.subentityNames.isEmpty { traits.append("sub-entities \(entity.subentityNames.joined(separator: ", "))") }
        var out = "entity \(entity.name)" + (traits.isEmpty ? "" : " (\(traits.joined(separator: "; ")))") + "\n"

        let identity = entity.identityAttributes.map(\.name)
        switch entity.identityStrategy {
        case .insert: out += "  identity: none (every object is inserted)\n"
        case .unique: out += "  identity: \(identity.joined(separator: ", ")) (uniquing)\n"
        case .composite: out += "  identity: \(identity.joined(separator: ", ")) (composite uniquing)\n"
        }
        if let name = declaration.entityMapperName { out += "  entity mapper: \(name)\n" }
        if let name = declaration.dictionaryTransformerName { out += "  dictionary transformer: \(name)\n" }

        for attribute in declaration.attributes {
            var parts = [attribute.type.rawValue]
            if !attribute.isOptional { parts.append("required") }
            if let value = attribute.defaultValue { parts.append("default \(ModelSummary.display(value, type: attribute.type))") }
            parts.append(
                keyPathText(
                    entity.attributeIndex(of: attribute.name).flatMap { i in
                        entity.attributeMappings.first { $0.index == i }?.keyPath
                    }))
            if let name = attribute.transformerName { parts.append("transformer \(name)") }
            out += "  attribute \(attribute.name): \(parts.joined(separator: ", "))\n"
        }
        for relationship in declaration.relationships {
            var kind = relationship.isToMany ? (relationship.isOrdered ? "to-many ordered" : "to-many") : "to-one"
            kind += " \(relationship.destinationEntity)"
            var parts = [kind]
            if let inverse = relationship.inverseName { parts.append("inverse \(inverse)") }
            if relationship.deleteRule != .nullify { parts.append("delete rule \(relationship.deleteRule.rawValue)") }
            if !relationship.isOptional { parts.append("required") }
            if relationship.minCount > 0 { parts.append("at least \(relationship.minCount)") }
            if relationship.maxCount > 0 { parts.append("at most \(relationship.maxCount)") }
            parts.append(
                keyPathText(
                    entity.relationshipIndex(of: relationship.name).flatMap { i in
                        entity.relationshipMappings.first { $0.index == i }?.keyPath
                    }))
            if let policy = relationship.mergePolicy { parts.append("merge \(policy.rawValue)") }
            out += "  relationship \(relationship.name): \(parts.joined(separator: ", "))\n"
        }
        let other = ModelSummary.otherUserInfo(declaration.userInfo)
        if !other.isEmpty { out += "  user info: \(other)\n" }
        return out
    }

    /// A default value as a reader expects it: dates in RFC 3339 (UTC), floats as the
    /// shortest text of the `Float`, the rest as ``AttributeValue/description``.
    static func display(_ value: AttributeValue, type: AttributeType) -> String {
        switch value {
        case .date(let date):
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(secondsFromGMT: 0)
            let seconds = date.timeIntervalSinceReferenceDate
            formatter.formatOptions = seconds.rounded() == seconds ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
            return formatter.string(from: date)
        case .double(let d) where type == .float:
            return Float(d).description
        default:
            return value.description
        }
    }

    private func keyPathText(_ keyPath: JSONKeyPath?) -> String {
        keyPath.map { "key path \($0)" } ?? "not mapped"
    }

    /// User info other than the annotations shown above and Core Data settings: `key = value; …`.
    static func otherUserInfo(_ userInfo: [String: String]) -> String {
        let shown: Set<String> = [
            GrootAnnotation.identityAttributes, GrootAnnotation.identityAttribute, GrootAnnotation.entityMapperName,
            GrootAnnotation.jsonDictionaryTransformerName,
        ]
        return CoreDataSettings.annotations(in: userInfo).filter { !shown.contains($0.key) }
            .sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: "; ")
    }

    // MARK: - Names

    private var namesSection: String {
        let declarations = loaded.bindingDeclarations
        let builtIns = Set(BindingDeclarations.builtInTransformerNames)
        var uses: [(kind: String, name: String, site: String, state: String)] = []
        for entity in loaded.model.entities {
            if let name = entity.entityMapperName {
                uses.append(("entity mapper", name, "entity \(entity.name)", declarations.entityMappers[name] == nil ? "not bound" : "bound"))
            }
            if let name = entity.dictionaryTransformerName {
                uses.append(
                    (
                        "dictionary transformer", name, "entity \(entity.name)",
                        declarations.dictionaryTransformers[name] == nil ? "not bound" : "bound"
                    ))
            }
            for attribute in entity.attributes {
                guard let name = attribute.transformerName else { continue }
                let state = declarations.transformers[name] != nil ? "bound" : builtIns.contains(name) ? "built-in" : "not bound"
                uses.append(("value transformer", name, "entity \(entity.name), attribute \(attribute.name)", state))
            }
        }
        guard !uses.isEmpty else { return "names: none\n" }
        var out = "names:\n"
        var seen: Set<String> = []
        for use in uses where seen.insert(use.kind + "\u{0}" + use.name).inserted {
            let sites = uses.filter { $0.kind == use.kind && $0.name == use.name }.map(\.site)
            out += "  \(use.kind) \(use.name): \(use.state) (\(sites.joined(separator: "; ")))\n"
        }
        return out
    }
}

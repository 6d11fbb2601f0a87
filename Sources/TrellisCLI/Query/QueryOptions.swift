import Foundation
import Trellis

/// The options that select objects, shared by `export`, `count` and `watch`: `--where`
/// (repeatable, joined with AND), `--sort`, `--limit`, `--offset`; and how they become an
/// ``ObjectFetchRequest`` (see docs/Queries.md and docs/CLI.md).
enum QueryOptions {
    static let wheres = OptionKey<[String]>(
        repeating: "--where", valueName: "predicate",
        help: "Only objects matching the predicate (NSPredicate format: \"rating > 4 AND name BEGINSWITH[c] 'bat'\"), "
            + "or ATTRIBUTE=VALUE (the value coerced to the attribute's type; null: no value).")
    static let sort = OptionKey<String?>(
        "--sort", valueName: "keys",
        help: "Order by attributes or to-one key paths, comma-separated, '-' for descending (-rating,name); ties by object ID.")
    static let limit = OptionKey<Int?>("--limit", valueName: "n", help: "At most this many objects.")
    static let offset = OptionKey<Int?>("--offset", valueName: "n", help: "Skip this many objects of the sorted results.")

    /// The request for `entity` the options describe.
    /// - Throws: ``UsageError`` (exit 64) for a predicate that does not parse or fit the
    ///   entity (naming the column in the `--where` text), a bad sort key, a negative limit
    ///   or offset; ``CommandError`` for an `ATTRIBUTE=VALUE` whose attribute is unknown or
    ///   whose value does not fit.
    static func request(
        _ arguments: ParsedArguments, entity: ResolvedEntity, model: ObjectModel,
        bindings: MappingBindings, sorting: Bool = true
    ) throws -> ObjectFetchRequest {
        var predicates: [ObjectPredicate] = []
        for text in arguments[wheres] {
            let predicate = try condition(text, entity: entity, model: model, bindings: bindings)
            do {
                _ = try ObjectFetchRequest(entity: entity.name, predicate: predicate).resolved(in: model)
            } catch let error as QueryError {
                let hint =
                    error.code == .unknownProperty
                    ? error.keyPath.flatMap {
                        PropertySuggestion.hint(forJSONKeyPath: $0, from: entity, model: model)
                    } : nil
                throw UsageError("invalid predicate for '--where' (\(text)): \(error)" + (hint.map { "; " + $0 } ?? ""))
            }
            predicates.append(predicate)
        }
        var request = ObjectFetchRequest(
            entity: entity.name,
            predicate: predicates.isEmpty
                ? nil
                : predicates.count == 1 ? predicates[0] : .and(predicates))
        if sorting {
            if let limit = arguments[limit] {
                guard limit >= 0 else { throw UsageError("invalid value '\(limit)' for '--limit'; expected 0 or more") }
                request.limit = limit
            }
            if let offset = arguments[offset] {
                guard offset >= 0 else { throw UsageError("invalid value '\(offset)' for '--offset'; expected 0 or more") }
                request.offset = offset
            }
            if let keys = arguments[sort] {
                do {
                    request.sortDescriptors = try ObjectSortDescriptor.list(keys)
                    _ = try request.resolved(in: model)
                } catch let error as QueryError {
                    throw UsageError("invalid value for '--sort': \(error.message)")
                }
            }
        }
        return request
    }

    /// One `--where` text: `ATTRIBUTE=VALUE` when the text before its first `=` (not part
    /// of `==`, `!=`, `<=`, `>=`) names an attribute, or an attribute through to-one
    /// relationships (`user.screenName=jack`); otherwise a predicate.
    static func condition(
        _ text: String, entity: ResolvedEntity, model: ObjectModel,
        bindings: MappingBindings
    ) throws -> ObjectPredicate {
        if let (lhs, rhs) = legacySplit(text) {
            if let (owner, attribute) = attribute(at: lhs, from: entity, model: model) {
                let value = rhs == "null" || rhs == "nil" ? nil : try ExportRunner.value(rhs, for: attribute, in: owner, bindings: bindings)
                return .compare(lhs, .equal, value.map { .value($0) } ?? .null)
            }
            if lhs.contains("."), lhs.allSatisfy({ isNameCharacter($0) || $0 == "." }),
                let path = PropertySuggestion.propertyPath(forJSONKeyPath: lhs, from: entity, model: model), path != lhs
            {
                throw CommandError(
                    .unknownName,
                    "--where: '\(lhs)' is not a property path of \(entity.name), but the JSON key path "
                        + "of \(path): did you mean --where " + Suggestion.shellQuoted("\(path)=\(rhs)") + "?")
            }
            if lhs.allSatisfy(isNameCharacter) {
                // Throws the list of attributes, or the attribute mapped to a JSON key given instead.
                _ = try ModelLoading.attribute(lhs, of: entity, option: "--where") { "--where " + Suggestion.shellQuoted("\($0)=\(rhs)") }
            }
        }
        do {
            return try ObjectPredicate(format: text)
        } catch let error as QueryError {
            throw UsageError("invalid predicate for '--where' (\(text)): \(error)")
        }
    }

    private static func legacySplit(_ text: String) -> (String, String)? {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { return nil }
        let after = text.index(after: equals)
        if after < text.endIndex, text[after] == "=" { return nil }
        let before = text[text.index(before: equals)]
        if before == "!" || before == "<" || before == ">" { return nil }
        return (String(text[..<equals]), String(text[after...]))
    }

    /// The attribute `path` names (exactly, or through to-one relationships), with its entity.
    private static func attribute(at path: String, from entity: ResolvedEntity, model: ObjectModel)
        -> (ResolvedEntity, AttributeDescription)?
    {
        if let attribute = entity.attribute(named: path) { return (entity, attribute) }
        var current = entity
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return nil }
        for (i, name) in parts.enumerated() {
            if i == parts.count - 1 { return current.attribute(named: name).map { (current, $0) } }
            guard let relationship = current.relationship(named: name), !relationship.isToMany,
                let next = model.entity(named: relationship.destinationEntity)
            else { return nil }
            current = next
        }
        return nil
    }

    private static func isNameCharacter(_ c: Character) -> Bool { c == "_" || c == "$" || c.isLetter || c.isNumber }
}

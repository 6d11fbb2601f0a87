import Trellis

/// What to suggest for a name that is not an attribute of an entity: users write the JSON
/// key they see in the payload (`screen_name`) where the command wants the attribute
/// (`screenName`). Shared by every option naming attributes (`--where`, `--key-attribute`,
/// and the predicates of `--where`), so they all answer alike.
enum PropertySuggestion {
    /// The attribute of `entity` mapped to the JSON key path `text` (`screen_name`,
    /// `user.screen_name`), compared as written in the model (the key path's text), or nil.
    /// When several attributes read that key path, the first in model order.
    static func attribute(mappedToJSONKey text: String, in entity: ResolvedEntity) -> AttributeDescription? {
        entity.attributeMappings.first { $0.keyPath.description == text }.map { entity.attributes[$0.index] }
    }

    /// The relationship of `entity` mapped to the JSON key path `text`, or nil.
    static func relationship(mappedToJSONKey text: String, in entity: ResolvedEntity) -> RelationshipDescription? {
        entity.relationshipMappings.first { $0.keyPath.description == text }.map { entity.relationships[$0.index] }
    }

    /// The message for `name`, not an attribute of `entity`:
    ///
    ///     'screen_name' is not an attribute of User, but the JSON key of its attribute 'screenName': did you mean --where screenName=jack?
    ///     'screenname' is not an attribute of User; did you mean 'screenName'? Its attributes: id, name, screenName, …
    ///     'rank' is not an attribute of Post; its attributes: id, title, score
    ///
    /// - Parameter corrected: the command-line text that uses the suggested attribute
    ///   (`{ "--where \($0)=jack" }`), shown after `did you mean`.
    static func unknownAttributeMessage(
        _ name: String, of entity: ResolvedEntity,
        corrected: (String) -> String = { "'\($0)'" }
    ) -> String {
        let head = "'\(name)' is not an attribute of \(entity.name)"
        if let attribute = attribute(mappedToJSONKey: name, in: entity) {
            return head + ", but the JSON key of its attribute '\(attribute.name)': did you mean \(corrected(attribute.name))?"
        }
        let names = entity.attributes.map(\.name)
        let list = names.joined(separator: ", ")
        let lowered = name.lowercased()
        if let close = names.first(where: { $0.lowercased() == lowered })
            ?? Suggestion.closest(to: name, among: names.filter { Suggestion.distance(name, $0) <= 2 })
        {
            return head + "; did you mean \(corrected(close))? Its attributes: " + list
        }
        return head + "; its attributes: " + list
    }

    /// For a key path a predicate names that is no property path of `entity`: the property
    /// path that reads the JSON key path `text` instead, through to-one relationships
    /// (`user.screen_name` from a status: `user.screenName`), as a hint
    /// (`'user.screen_name' is a JSON key path; the property it maps to is user.screenName: did you mean user.screenName?`);
    /// nil when no mapping matches.
    static func hint(forJSONKeyPath text: String, from entity: ResolvedEntity, model: ObjectModel) -> String? {
        guard let path = propertyPath(forJSONKeyPath: text, from: entity, model: model), path != text else { return nil }
        return "'\(text)' is a JSON key path; the property it maps to is \(path): did you mean \(path)?"
    }

    /// The property names reading the JSON key path `text` from `entity`: an attribute or
    /// relationship mapped to all of it, or a relationship mapped to (or named) a prefix
    /// followed by the same for its destination.
    static func propertyPath(forJSONKeyPath text: String, from entity: ResolvedEntity, model: ObjectModel) -> String? {
        if let attribute = attribute(mappedToJSONKey: text, in: entity) { return attribute.name }
        if let relationship = relationship(mappedToJSONKey: text, in: entity) { return relationship.name }
        if entity.attribute(named: text) != nil || entity.relationship(named: text) != nil { return text }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return nil }
        for split in stride(from: parts.count - 1, through: 1, by: -1) {
            let head = parts[..<split].joined(separator: ".")
            let rest = parts[split...].joined(separator: ".")
            guard let relationship = relationship(mappedToJSONKey: head, in: entity) ?? entity.relationship(named: head),
                let destination = model.entity(named: relationship.destinationEntity),
                let tail = propertyPath(forJSONKeyPath: rest, from: destination, model: model)
            else { continue }
            return relationship.name + "." + tail
        }
        return nil
    }
}

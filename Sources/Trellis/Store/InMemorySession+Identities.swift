/// The identity indexes of the in-memory store: per inheritance root and identity namespace,
/// identity → primary key (``InMemoryTable/identities``).
extension InMemorySession {
    func index(_ info: EntityInfo, _ key: Int64, _ values: [AttributeValue?]) throws {
        var done: [(Int, IdentityKey)] = []
        for namespace in info.lineageNamespaces {
            guard let identity = schema.entities[namespace].identity(of: values) else { continue }
            let existing = state.tables[info.rootNumber].identities[namespace, default: [:]].updateValue(key, forKey: identity)
            if let existing, existing != key {
                state.tables[info.rootNumber].identities[namespace]?[identity] = existing
                for (n, k) in done { state.tables[info.rootNumber].identities[n]?[k] = nil }
                throw StoreError(
                    .constraintViolation,
                    message: "another \(schema.entities[namespace].name) already has identity \(identity)",
                    details: "existing \(schema.entities[namespace].name)/\(existing)")
            }
            if info.lineageNamespaces.count > 1 { done.append((namespace, identity)) }
        }
    }

    func unindex(_ info: EntityInfo, _ key: Int64, _ values: [AttributeValue?]) {
        for namespace in info.lineageNamespaces {
            guard let identity = schema.entities[namespace].identity(of: values) else { continue }
            if state.tables[info.rootNumber].identities[namespace]?[identity] == key {
                state.tables[info.rootNumber].identities[namespace]?[identity] = nil
            }
        }
    }
}

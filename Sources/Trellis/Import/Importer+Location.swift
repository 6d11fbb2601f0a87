/// Plans, paths, errors and diagnostics.
extension Importer {
    // MARK: - Plans, paths, diagnostics

    func plan(_ info: EntityInfo) throws -> EntityPlan {
        if let plan = plans[info.number] { return plan }
        let plan = EntityPlan(info: info, schema: schema, defaultPolicy: options.toManyPolicy)
        plans[info.number] = plan
        return plan
    }

    func currentPath() -> JSONPath { currentLocation().path }

    /// The path of the value being imported and, when known, that value in the element's
    /// JSON (so that key path components reading arrays show as indexes: `$[0].items[1]`).
    func currentLocation() -> (path: JSONPath, value: JSONValue?) {
        guard elements.indices.contains(elementIndex) else { return (.root, nil) }
        var path = elements[elementIndex].path
        var node: JSONValue? = elements[elementIndex].value
        for step in steps {
            switch step {
            case .keyPath(let k):
                path = path.appending(k, readingFrom: node)
                if let current = node, case .present(let next) = k.lookup(in: current) { node = next } else { node = nil }
            case .index(let i):
                path = path.appending(index: i)
                if case .array(let array)? = node, i < array.count { node = array[i] } else { node = nil }
            }
        }
        return (path, node)
    }

    func fail(
        _ code: ImportError.Code, _ keyPath: JSONKeyPath?, _ entity: String, _ property: String?,
        _ value: JSONValue?, _ message: String, cause: (any Error)? = nil
    ) -> ImportError {
        var (path, node) = currentLocation()
        if let keyPath { path = path.appending(keyPath, readingFrom: node) }
        return ImportError(code, path: path, entity: entity, property: property, value: value, message: message, cause: cause)
    }

    func diagnose(_ code: ImportDiagnostic.Code, _ message: String) {
        diagnosticCount += 1
        if diagnosticCount <= 100 {
            report.diagnostics.append(ImportDiagnostic(code: code, path: currentPath(), message: message))
        } else if diagnosticCount == 101 {
            report.diagnostics.append(ImportDiagnostic(code: .truncated, path: nil, message: "further diagnostics left out"))
        }
    }
}

/// Where a map (or a value being read or written) sits in the document, kept cheaply.
///
/// A location is a parent chain plus one inline step: creating a map for a nested
/// object or an array element costs no allocation for its own step, and a chain node
/// is allocated only when that map itself creates children. The ``JSONPath`` is built
/// only when an error is reported, as swift-foundation's `JSONDecoder` does with its
/// coding-path nodes.
struct MappingLocation {
    /// One step from a parent location.
    enum Step {
        /// No step: the location is the parent itself (the root when the parent is nil).
        case here
        /// An object key (or a property name of a stored object).
        case key(String)
        /// An array element (or a to-many relationship position).
        case index(Int)
        /// Several steps at once: a key path of more than one component, resolved
        /// against the document (each component is an index or a key as it was used).
        case components([JSONPath.Component])
    }

    /// The location of the parent, or nil for the root.
    let parent: Node?
    /// The last step.
    let step: Step

    /// The root, `$`.
    static let root = MappingLocation(parent: nil, step: .here)

    /// A materialised parent location, shared by all of its children.
    final class Node: Sendable {
        let parent: Node?
        let step: Step
        /// The number of nodes from the root to this one (1 for a child of the root).
        let depth: Int

        init(parent: Node?, step: Step) {
            self.parent = parent
            self.step = step
            self.depth = (parent?.depth ?? 0) + 1
        }
    }

    /// How many materialised steps lie between the root and this location's parent.
    var depth: Int { parent?.depth ?? 0 }

    /// This location as a chain node, for use as the parent of children (nil for the root).
    /// Allocates one node unless this is the root.
    var asParent: Node? {
        if case .here = step { return parent }
        return Node(parent: parent, step: step)
    }

    /// The same location with its step moved into a shared chain node, so that all
    /// children reuse one node (one allocation; none when already materialised).
    var materialized: MappingLocation {
        if case .here = step { return self }
        return MappingLocation(parent: Node(parent: parent, step: step), step: .here)
    }

    /// The location of `step` below this one.
    func appending(_ step: Step) -> MappingLocation {
        MappingLocation(parent: asParent, step: step)
    }

    /// The path from the root, outermost first.
    var path: JSONPath {
        var reversed: [Step] = [step]
        var node = parent
        while let current = node {
            reversed.append(current.step)
            node = current.parent
        }
        var components: [JSONPath.Component] = []
        for step in reversed.reversed() {
            switch step {
            case .here: break
            case .key(let key): components.append(.key(key))
            case .index(let index): components.append(.index(index))
            case .components(let steps): components.append(contentsOf: steps)
            }
        }
        return JSONPath(components: components)
    }
}

extension MappingLocation.Step: Sendable {}
extension MappingLocation: Sendable {}

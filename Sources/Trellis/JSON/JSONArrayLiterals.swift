/// Moves `count` initialized elements out of `p` into a new array of exactly that size.
///
/// Small counts use array literals: the standard library allocates those inline with
/// the element type's cached metadata, whereas `Array(unsafeUninitializedCapacity:)`
/// goes through an unspecialized runtime path that looks the storage type up in the
/// generic metadata cache on every call (hundreds of instructions per array).
@inline(__always)
func moveIntoArray<Element>(_ p: UnsafeMutablePointer<Element>, count: Int) -> [Element] {
    switch count {
    case 0: return []
    case 1: return [(p + 0).move()]
    case 2: return [(p + 0).move(), (p + 1).move()]
    case 3: return [(p + 0).move(), (p + 1).move(), (p + 2).move()]
    case 4: return [(p + 0).move(), (p + 1).move(), (p + 2).move(), (p + 3).move()]
    case 5: return [(p + 0).move(), (p + 1).move(), (p + 2).move(), (p + 3).move(), (p + 4).move()]
    case 6: return [(p + 0).move(), (p + 1).move(), (p + 2).move(), (p + 3).move(), (p + 4).move(), (p + 5).move()]
    case 7: return [(p + 0).move(), (p + 1).move(), (p + 2).move(), (p + 3).move(), (p + 4).move(), (p + 5).move(), (p + 6).move()]
    case 8: return [(p + 0).move(), (p + 1).move(), (p + 2).move(), (p + 3).move(), (p + 4).move(), (p + 5).move(), (p + 6).move(), (p + 7).move()]
    case 9:
        return [(p + 0).move(), (p + 1).move(), (p + 2).move(), (p + 3).move(), (p + 4).move(), (p + 5).move(), (p + 6).move(), (p + 7).move(), (p + 8).move()]
    case 10:
        return [
            (p + 0).move(), (p + 1).move(), (p + 2).move(), (p + 3).move(), (p + 4).move(), (p + 5).move(), (p + 6).move(), (p + 7).move(), (p + 8).move(),
            (p + 9).move(),
        ]
    case 11:
        return [
            (p + 0).move(), (p + 1).move(), (p + 2).move(), (p + 3).move(), (p + 4).move(), (p + 5).move(), (p + 6).move(), (p + 7).move(), (p + 8).move(),
            (p + 9).move(), (p + 10).move(),
        ]
    case 12:
        return [
            (p + 0).move(), (p + 1).move(), (p + 2).move(), (p + 3).move(), (p + 4).move(), (p + 5).move(), (p + 6).move(), (p + 7).move(), (p + 8).move(),
            (p + 9).move(), (p + 10).move(), (p + 11).move(),
        ]
    case 13:
        return [
            (p + 0).move(), (p + 1).move(), (p + 2).move(), (p + 3).move(), (p + 4).move(), (p + 5).move(), (p + 6).move(), (p + 7).move(), (p + 8).move(),
            (p + 9).move(), (p + 10).move(), (p + 11).move(), (p + 12).move(),
        ]
    case 14:
        return [
            (p + 0).move(), (p + 1).move(), (p + 2).move(), (p + 3).move(), (p + 4).move(), (p + 5).move(), (p + 6).move(), (p + 7).move(), (p + 8).move(),
            (p + 9).move(), (p + 10).move(), (p + 11).move(), (p + 12).move(), (p + 13).move(),
        ]
    case 15:
        return [
            (p + 0).move(), (p + 1).move(), (p + 2).move(), (p + 3).move(), (p + 4).move(), (p + 5).move(), (p + 6).move(), (p + 7).move(), (p + 8).move(),
            (p + 9).move(), (p + 10).move(), (p + 11).move(), (p + 12).move(), (p + 13).move(), (p + 14).move(),
        ]
    case 16:
        return [
            (p + 0).move(), (p + 1).move(), (p + 2).move(), (p + 3).move(), (p + 4).move(), (p + 5).move(), (p + 6).move(), (p + 7).move(), (p + 8).move(),
            (p + 9).move(), (p + 10).move(), (p + 11).move(), (p + 12).move(), (p + 13).move(), (p + 14).move(), (p + 15).move(),
        ]
    default:
        return [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let target = buffer.baseAddress { target.moveInitialize(from: p, count: count) }
            initialized = count
        }
    }
}

/// A growable stack in manually managed memory, used by the reader to hold the
/// elements, keys and frames of the containers it is building.
///
/// Finished containers are *moved* out in one block (``moveArray(from:)``), which
/// gives arrays of exactly the right capacity and no reference-count traffic.
struct JSONParserStack<Element>: ~Copyable {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count: Int = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 4)
        base = UnsafeMutablePointer<Element>.allocate(capacity: self.capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count &+= 1
    }

    /// Pushes `element` by moving its bits (no reference counting) and leaves
    /// `replacement` in its place.
    @inline(__always)
    mutating func push(moving element: inout Element, leaving replacement: Element) {
        if count == capacity { grow() }
        // Initialise the slot with the replacement, then exchange: `swap` moves bits
        // without reference counting. (Moving out of `&element` through a pointer would
        // copy a whole stride from a stack slot only `size` bytes long — AddressSanitizer
        // reported that read, found by Fuzz/json.)
        let target = base + count
        target.initialize(to: replacement)
        swap(&target.pointee, &element)
        count &+= 1
    }

    /// The last element (the stack must not be empty).

    @inline(__always)
    var last: Element { base[count &- 1] }

    /// Removes and returns the last element (the stack must not be empty).
    @inline(__always)
    mutating func popLast() -> Element {
        count &-= 1
        return (base + count).move()
    }

    /// Removes every element from position `start` on.
    mutating func removeAll(from start: Int) {
        (base + start).deinitialize(count: count - start)
        count = start
    }

    /// Moves the elements from position `start` on into a new array of exactly that size.
    mutating func moveArray(from start: Int) -> [Element] {
        let array = moveIntoArray(base + start, count: count - start)
        count = start
        return array
    }

    /// Forgets the elements from position `start` on, which the caller has moved out.
    mutating func forgetMovedElements(from start: Int) {
        count = start
    }

    private mutating func grow() {
        let newCapacity = capacity * 2
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}

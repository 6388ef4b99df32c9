import CQuic
import Glibc
import Testing

/// The allocator each connection gives ngtcp2, which frees what ngtcp2 0.12.1 loses (CQuic.h).
@Suite("ngtcp2 connection memory")
struct ConnectionMemoryTests {
    /// Blocks still allocated when the connection's memory is freed are freed with it and
    /// counted; blocks ngtcp2 freed itself are not, and reallocation keeps both content and count.
    @Test func freesAndCountsWhatIsLeft() throws {
        let memory = try #require(cquic_conn_memory_new())
        let allocator = try #require(cquic_conn_memory_allocator(memory)).pointee
        let context = allocator.user_data
        let kept = try #require(allocator.malloc(16, context))
        kept.copyMemory(from: Array("sixteen bytes!!!".utf8), byteCount: 16)
        let grown = try #require(allocator.realloc(kept, 4096, context))
        #expect(String(decoding: UnsafeRawBufferPointer(start: grown, count: 16), as: UTF8.self) == "sixteen bytes!!!")
        let zeroed = try #require(allocator.calloc(4, 16, context))
        #expect(UnsafeRawBufferPointer(start: zeroed, count: 64).allSatisfy { $0 == 0 })
        #expect(allocator.calloc(Int.max, 2, context) == nil)
        let returned = try #require(allocator.malloc(10, context))
        allocator.free(returned, context)
        allocator.free(nil, context)
        #expect(cquic_conn_memory_free(memory) == 2)
    }

    /// The allocator counts the bytes ngtcp2 holds: at least what was asked for, back to zero once freed.
    @Test func countsTheBytesHeld() throws {
        let memory = try #require(cquic_conn_memory_new())
        let allocator = try #require(cquic_conn_memory_allocator(memory)).pointee
        let context = allocator.user_data
        #expect(cquic_conn_memory_bytes(memory) == 0)
        let first = try #require(allocator.malloc(1000, context))
        let second = try #require(allocator.calloc(10, 100, context))
        #expect(cquic_conn_memory_bytes(memory) >= 2000)
        let grown = try #require(allocator.realloc(first, 5000, context))
        #expect(cquic_conn_memory_bytes(memory) >= 6000)
        allocator.free(grown, context)
        allocator.free(second, context)
        #expect(cquic_conn_memory_bytes(memory) == 0)
        #expect(cquic_conn_memory_free(memory) == 0)
    }
}

/// Setting an idle connection's pool pages aside (CQuic's `cquic_conn_memory_set_aside`): the
/// pages leave memory and come back with every byte where it was.
@Suite("ngtcp2 connection memory set aside")
struct ConnectionMemorySetAsideTests {
    private static func isResident(_ pointer: UnsafeMutableRawPointer) -> Bool {
        let page = UnsafeMutableRawPointer(bitPattern: Int(bitPattern: pointer) & ~4095)!
        var residency: UInt8 = 0
        #expect(mincore(page, 4096, &residency) == 0)
        return residency & 1 == 1
    }

    @Test func pagesLeaveAndComeBackWhole() throws {
        let memory = try #require(cquic_conn_memory_new())
        let allocator = try #require(cquic_conn_memory_allocator(memory)).pointee
        let context = allocator.user_data
        // Two pool blocks of two and three pages, written here and there; one small heap block.
        let first = try #require(allocator.malloc(8000, context))
        let second = try #require(allocator.malloc(12_000, context))
        let small = try #require(allocator.malloc(100, context))
        let writes: [(UnsafeMutableRawPointer, Int, Int)] = [(first, 0, 300), (first, 5000, 17), (first, 7990, 10),
                                                             (second, 0, 40), (second, 100, 1), (second, 9000, 2000)]
        var expected: [[UInt8]] = []
        for (index, (block, offset, count)) in writes.enumerated() {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index &+ 1) | 1 }
            (block + offset).copyMemory(from: bytes, byteCount: count)
            expected.append(bytes)
        }
        small.copyMemory(from: Array(repeating: UInt8(7), count: 100), byteCount: 100)
        #expect(cquic_conn_memory_is_set_aside(memory) == 0)
        #expect(cquic_conn_memory_set_aside(memory) == 4 * 4096) // the middle page of `second` was never written
        #expect(cquic_conn_memory_is_set_aside(memory) == 1)
        #expect(!Self.isResident(first) && !Self.isResident(second + 9000))
        #expect(cquic_conn_memory_set_aside(memory) == 0) // already
        cquic_conn_memory_restore(memory)
        #expect(cquic_conn_memory_is_set_aside(memory) == 0)
        for (index, (block, offset, count)) in writes.enumerated() {
            #expect(Array(UnsafeRawBufferPointer(start: block + offset, count: count)) == expected[index])
        }
        // What was never written reads zero, and the heap block never left.
        #expect(UnsafeRawBufferPointer(start: first + 300, count: 4700).allSatisfy { $0 == 0 })
        #expect(UnsafeRawBufferPointer(start: second + 101, count: 8899).allSatisfy { $0 == 0 })
        #expect(UnsafeRawBufferPointer(start: small, count: 100).allSatisfy { $0 == 7 })
        // Set aside again, the blocks are still freed whole (the list's links were on the pages).
        #expect(cquic_conn_memory_set_aside(memory) > 0)
        #expect(cquic_conn_memory_free(memory) == 3)
    }
}

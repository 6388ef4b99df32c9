import CQuic
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

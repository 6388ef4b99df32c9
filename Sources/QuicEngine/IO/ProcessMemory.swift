internal import CQuic

/// The process's own view of its memory, for the operator's figures.
public enum ProcessMemory {
    /// Bytes the C heap has handed out and not got back (malloc's in-use total): Swift objects,
    /// ngtcp2's and GnuTLS's state. Resident memory is this plus what the allocator keeps.
    public static var heapBytes: Int { Int(cquic_heap_bytes_in_use()) }
}

internal import CLinux
internal import CQuic

/// The process's own view of its memory, for the operator's figures.
public enum ProcessMemory {
    /// Bytes the C heap has handed out and not got back (malloc's in-use total): Swift objects,
    /// ngtcp2's and GnuTLS's state. Resident memory is this plus what the allocator keeps.
    public static var heapBytes: Int { Int(clinux_heap_bytes_in_use()) }

    /// Resident bytes of the pages ngtcp2's larger blocks live on (they are outside the heap, so
    /// that the pages a connection never writes cost nothing), all connections together.
    public static var connectionPageBytes: Int { Int(cquic_page_pool_resident_bytes()) }
}

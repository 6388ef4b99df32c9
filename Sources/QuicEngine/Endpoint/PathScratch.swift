internal import CQuic
import Glibc
import RuntimeCore

/// Stable C memory for the `ngtcp2_path` arguments of every call. ngtcp2 path storage points into
/// itself, so it must never move: it lives on the heap, one set per endpoint (all calls happen on
/// the endpoint's thread, one at a time).
final class PathScratch {
    private let readLocal = UnsafeMutablePointer<sockaddr_storage>.allocate(capacity: 1)
    private let readRemote = UnsafeMutablePointer<sockaddr_storage>.allocate(capacity: 1)
    private let readPath = UnsafeMutablePointer<ngtcp2_path>.allocate(capacity: 1)
    private var cachedLocal: SocketAddress?
    private var cachedRemote: SocketAddress?
    private let written = UnsafeMutablePointer<ngtcp2_path_storage>.allocate(capacity: 1)
    private let batch = UnsafeMutablePointer<ngtcp2_path_storage>.allocate(capacity: 1)
    let vectorCapacity = 16
    let vectors: UnsafeMutablePointer<ngtcp2_vec>

    init() {
        readLocal.initialize(to: sockaddr_storage())
        readRemote.initialize(to: sockaddr_storage())
        readPath.initialize(to: ngtcp2_path())
        written.initialize(to: ngtcp2_path_storage())
        batch.initialize(to: ngtcp2_path_storage())
        ngtcp2_path_storage_zero(written)
        ngtcp2_path_storage_zero(batch)
        vectors = .allocate(capacity: vectorCapacity)
        vectors.initialize(repeating: ngtcp2_vec(), count: vectorCapacity)
    }

    deinit {
        readLocal.deallocate()
        readRemote.deallocate()
        readPath.deallocate()
        written.deallocate()
        batch.deallocate()
        vectors.deallocate()
    }

    /// A path for the two addresses, valid during `body`.
    func withPath<Result>(local: SocketAddress, remote: SocketAddress, _ body: (UnsafePointer<ngtcp2_path>) -> Result) -> Result {
        if cachedLocal != local {
            let length = local.write(to: &readLocal.pointee)
            readPath.pointee.local = ngtcp2_addr(addr: UnsafeMutableRawPointer(readLocal).assumingMemoryBound(to: sockaddr.self), addrlen: length)
            cachedLocal = local
        }
        if cachedRemote != remote {
            let length = remote.write(to: &readRemote.pointee)
            readPath.pointee.remote = ngtcp2_addr(addr: UnsafeMutableRawPointer(readRemote).assumingMemoryBound(to: sockaddr.self), addrlen: length)
            cachedRemote = remote
        }
        return body(readPath)
    }

    /// The path storage ngtcp2 fills when it writes a packet.
    func withWritePath<Result>(_ body: (UnsafeMutablePointer<ngtcp2_path>) -> Result) -> Result {
        body(&written.pointee.path)
    }

    var writtenLocal: SocketAddress? { SocketAddress(sockaddr: written.pointee.path.local.addr) }
    var writtenRemote: SocketAddress? { SocketAddress(sockaddr: written.pointee.path.remote.addr) }

    func rememberBatchPath() { ngtcp2_path_copy(&batch.pointee.path, &written.pointee.path) }

    func writtenPathEqualsBatchPath() -> Bool { ngtcp2_path_eq(&written.pointee.path, &batch.pointee.path) != 0 }
}

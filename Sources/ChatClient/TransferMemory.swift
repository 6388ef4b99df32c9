import CTerminal
import ChatClientKit

/// The memory of finished transfers goes back to the system (issue 24, defect 8). glibc keeps
/// what is freed in its heaps for later use, the hashing thread's arena among them, and a file's
/// chunks pass through them: one 57 MiB upload left chat-client 45 MB larger for good. Once no
/// transfer runs (and again as the last one's stream closes, when the connection has dropped the
/// bytes it kept for retransmission), every arena's free pages are given back.
enum TransferMemory {
    static func giveBack(after files: FileTransfers) {
        files.onIdle = { _ = cterminal_give_memory_back() }
    }
}

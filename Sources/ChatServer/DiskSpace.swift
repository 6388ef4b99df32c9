import Glibc

/// The free disk an upload must leave (`--disk-reserve`, PROTOCOL.md section 9 notes): on the
/// file system of the file folder, where uploads write, and on the database's, which chat,
/// history and accounts need. Read with `statvfs` on the file worker's thread, each time it is
/// asked (space others use or free counts at once).
struct DiskSpace: Sendable {
    /// The file folder first, then the folder of the database (if any).
    let folders: [String]

    init(files: String, database: String?) {
        var folders = [files]
        if let database {
            let folder = database.contains("/") ? String(database[..<database.lastIndex(of: "/")!]) : "."
            folders.append(folder.isEmpty ? "/" : folder)
        }
        self.folders = folders
    }

    /// Whether writing `bytes` more into the file folder, with `promised` more still to come from
    /// uploads already under way, leaves at least `reserve` bytes free on each file system. A file
    /// system whose space cannot be read does not refuse.
    func leaves(_ reserve: Int64, writing bytes: Int64, promised: Int64 = 0) -> Bool {
        guard reserve > 0 else { return true }
        // The database on the file folder's file system is checked once, with the uploads.
        var seen: Set<UInt64> = []
        for (index, folder) in folders.enumerated() {
            var status = stat()
            var space = statvfs()
            guard stat(folder, &status) == 0, seen.insert(UInt64(status.st_dev)).inserted, statvfs(folder, &space) == 0 else { continue }
            let free = Int64(space.f_bavail) * Int64(space.f_frsize)
            if free - (index == 0 ? bytes + promised : 0) < reserve { return false }
        }
        return true
    }
}

import ChatClientKit
import Glibc

/// Tab completion of a path (`/send`, `/get N FOLDER`; issue 24): the entries of the folder the
/// typed word names whose names begin with the word's last part, each as the whole word again,
/// escaped as `/send` reads it (`my\ notes.txt`), a folder ending in `/` (Tab goes on into it), a
/// file in a space. `~/` is the home folder. Names starting with `.` only when the word's last
/// part does. At most ``limit`` of them, in name order.
enum PathCompletion {
    static let limit = 500

    static func candidates(for word: String, home: String?) -> [String] {
        let typed = CommandWords.split(Substring(word))?.first ?? ""
        let slash = typed.lastIndex(of: "/")
        let folderTyped = slash.map { String(typed[...$0]) } ?? ""
        let prefix = slash.map { String(typed[typed.index(after: $0)...]) } ?? typed
        var folder = folderTyped.isEmpty ? "." : folderTyped
        if folder.hasPrefix("~/"), let home { folder = home + folder.dropFirst(1) }
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard name != ".", name != "..", name.hasPrefix(prefix), prefix.hasPrefix(".") || !name.hasPrefix(".") else { continue }
            names.append(name)
        }
        return names.sorted().prefix(limit).map { name in
            var status = stat()
            let isFolder = stat(folder + "/" + name, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
            return escaped(folderTyped + name) + (isFolder ? "/" : " ")
        }
    }

    /// A backslash before each character the command's words would otherwise take apart.
    static func escaped(_ path: String) -> String {
        var result = ""
        for character in path {
            if " \t'\"\\".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }
}

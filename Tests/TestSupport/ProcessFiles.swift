import Foundation

/// The files a process has open, read from /proc (its descriptors' links).
public enum ProcessFiles {
    /// How many descriptors of process `pid` name files under `folder` now.
    public static func openCount(of pid: Int32, under folder: String) -> Int {
        let descriptors = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []
        let resolved = (folder as NSString).resolvingSymlinksInPath
        return names.count { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + name) else { return false }
            return target.hasPrefix(folder + "/") || target.hasPrefix(resolved + "/")
        }
    }
}

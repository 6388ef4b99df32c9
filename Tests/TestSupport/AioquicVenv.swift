import Foundation

/// The pinned aioquic in .build/interop-venv, made by tools/interop/setup.sh (which `make deps`
/// runs too): the interop tests and the aioquic load driver's tests share it.
public enum AioquicVenv {
    public static let folder = BuildPaths.repository.appendingPathComponent(".build/interop-venv").path

    /// The venv's python once setup.sh has made sure of it (idempotent, quick when it is there);
    /// nil when Python or PyPI cannot give us aioquic, with setup.sh's error on standard error.
    public static let python: String? = {
        guard let setup = try? ChildProcess("/bin/bash", [BuildPaths.repository.appendingPathComponent("tools/interop/setup.sh").path, folder]) else {
            return nil
        }
        let result = setup.finish(timeout: 600)
        guard result.status == 0 else {
            FileHandle.standardError.write(Data("aioquic venv setup failed: \(result.errors)\n".utf8))
            return nil
        }
        return folder + "/bin/python"
    }()
}

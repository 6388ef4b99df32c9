import Foundation
import Testing
import TestSupport

/// The harness's crash net: a child that dies of a fault the test did not cause, or that prints
/// the Swift runtime's crash report, is an issue of the test that ends it, so that a server
/// crashing in the background can no longer go unseen (docs/SANITIZERS.md, the night runs of
/// 2026-12-07).
@Suite struct ChildCrashTests {
    @Test func aChildKilledByAFaultIsAnIssue() throws {
        let child = try ChildProcess("/bin/sh", ["-c", "echo 'about to fault' >&2; kill -SEGV $$"])
        _ = child.waitForExit(timeout: 10)
        #expect(child.crash?.contains("signal \(SIGSEGV)") == true, "\(child.crash ?? "no crash seen")")
        withKnownIssue("the child's crash is recorded") {
            _ = child.finish(timeout: 10)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("crashed: killed by signal \(SIGSEGV)") && $0.rawValue.contains("about to fault") }
        }
    }

    @Test func theRuntimesCrashReportIsAnIssueEvenWhenTheProcessHangsAfterIt() throws {
        // As the Swift runtime's crash handler can: the report, then no exit until SIGKILL.
        let child = try ChildProcess("/bin/sh", ["-c", "echo '*** Program crashed: Illegal instruction at 0x1 ***' >&2; exec sleep 60"])
        #expect(child.waitForLine(timeout: 10, where: { $0.contains("Program crashed") }) != nil)
        withKnownIssue("the crash report is recorded") {
            child.terminate()
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("crash report: *** Program crashed") }
        }
    }

    @Test func signalsTheTestSentAreNoCrash() throws {
        let child = try ChildProcess("/bin/sh", ["-c", "exec sleep 60"])
        child.signal(SIGABRT)
        _ = child.waitForExit(timeout: 10)
        #expect(child.crash == nil)
        _ = child.finish(timeout: 10)
    }

    @Test func anOrdinaryExitOrStopIsNoCrash() throws {
        let failing = try ChildProcess("/bin/sh", ["-c", "echo 'usage: x' >&2; exit 2"])
        #expect(failing.finish(timeout: 10).status == 2)
        #expect(failing.crash == nil)
        let stopped = try ChildProcess("/bin/sh", ["-c", "exec sleep 60"])
        stopped.terminate()
        #expect(stopped.crash == nil)
    }
}

// The one main of the project's fuzzers: under libFuzzer (built with -DFUZZING, scripts/fuzz.sh)
// it hands the fuzzer's loop the target's entry point; built without it, it replays the files given
// as arguments (a committed corpus) through the same entry point.
import Foundation

/// A fuzz target's entry point: one input; returns 0, and a broken promise traps.
public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

#if FUZZING
    /// libFuzzer's entry point for programs that keep their own `main`.
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzer(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: FuzzTarget
    ) -> Int32
#endif

/// Runs `target` under libFuzzer, or over the files named on the command line; `what` names what
/// a replay found nothing of ("broken promise").
public func fuzzMain(_ target: FuzzTarget, what: String) throws {
    #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv as UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        exit(runFuzzer(&argc, &argv, target))
    #else
        let paths = CommandLine.arguments.dropFirst()
        for path in paths {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            _ = bytes.withUnsafeBufferPointer { target($0.baseAddress, $0.count) }
        }
        print("replayed \(paths.count) inputs: no \(what)")
    #endif
}

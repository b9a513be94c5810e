import Foundation

/// Descriptors 0, 1 and 2 (standard input, output, error) opened on `/dev/null` when the
/// process was started with them closed (`catbird 2>&-`, a daemon-style launch): the kernel
/// gives a new file the lowest free descriptor, so the database opened next became descriptor
/// 2 and every log line was written into it from byte 0, corrupting it (tester finding
/// tester50c-F12). Called first, before any file is opened.
enum StandardDescriptors {
    static func openMissing() {
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
            // The lowest free descriptor is this one (the lower ones are open by now).
            if opened >= 0 && opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
        }
    }
}

#ifndef ONAIR_CSDBUS_SHIM_H
#define ONAIR_CSDBUS_SHIM_H

#include <systemd/sd-bus.h>

/// `sd_bus_message_read_basic` for a file descriptor, duplicated (close-on-exec) so that it
/// outlives the message; -1 when the message holds none.
#include <fcntl.h>
static inline int CSDBus_readDuplicatedFD(sd_bus_message *message) {
    int fd = -1;
    if (sd_bus_message_read_basic(message, 'h', &fd) < 0 || fd < 0) return -1;
    return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

#endif

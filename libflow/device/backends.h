/* backends.h -- the backends this library knows, a line each: the CPU
 * first (always built, the fallback of "auto"), then the accelerators,
 * which "auto" tries from the last to the second.  A backend `name` is a
 * directory device/<name>/ that defines `const flow_device_ops
 * flow_<name>_ops` of kind "<name>" (device/device.h); a build without its
 * toolkit links a stand-in instead (device/nocuda/), whose table fills
 * only kind, open (which says what is missing) and count (0). */
#ifndef FLOW_DEVICE_BACKENDS_H
#define FLOW_DEVICE_BACKENDS_H

#define FLOW_BACKENDS(X) X(cpu) X(cuda)

#endif

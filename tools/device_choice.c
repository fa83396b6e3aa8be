/* --device: see device_choice.h. */
#include "cli.h"
#include "device_choice.h"

int device_cpu_only(const char *command, const char *device) {
    int gpu;
    if (fcast_device_is_gpu(device, &gpu) != FC_OK) return cli_fail(command);
    if (!gpu) return 0;
    return cli_refuse(command, CLI_EXIT_INVALID,
                      "--device %s: %s runs on the CPU only in this version (use --device cpu or auto)", device, command);
}

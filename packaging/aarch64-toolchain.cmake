# Cross-compiling the core and the CLI for AArch64 (the Arm hosts of GH200 / GB200 systems) with Debian's cross
# toolchain and arm64 multiarch libraries; tests run under qemu-user. Used by packaging/cross-aarch64.sh.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Headers are shared (/usr/include); libraries and CMake/pkg-config files come from the arm64 multiarch directories,
# and the -dev packages that cannot be co-installed with their amd64 twins (simdjson, muparser) from the sysroot that
# cross-aarch64.sh unpacks them into.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SIGHTLINE_AARCH64_SYSROOT)
set(CMAKE_FIND_ROOT_PATH "${SIGHTLINE_AARCH64_SYSROOT}" "/")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} "${SIGHTLINE_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${SIGHTLINE_AARCH64_SYSROOT}")
# Tests (ctest) and anything CMake runs for the target go through qemu-user; -L / finds the arm64 loader and
# libraries that multiarch installed under /lib/aarch64-linux-gnu.
set(CMAKE_CROSSCOMPILING_EMULATOR "/usr/bin/qemu-aarch64;-L;/")

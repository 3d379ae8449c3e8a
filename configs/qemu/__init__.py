"""The QEMU backend: backend.py (QemuBackend: a point's key and run),
process.py (the QEMU-TCG process), profile.py (the CPU profiles in
../qemu-profiles), plugin_build.py and plugin/ (the TCG plugin that counts
the ROI)."""

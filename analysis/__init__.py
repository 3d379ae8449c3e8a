"""Stage 4: run records -> tables and reports. Reads records; runs nothing."""

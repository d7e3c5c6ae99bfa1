"""Native parts of the FMUs: the Python loader put in front of pythonfmu's Linux binary."""

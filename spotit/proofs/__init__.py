"""SpotIt."""

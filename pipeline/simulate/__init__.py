"""The hand simulator: a seeded dealer that plays whole sessions with one bot strategy per seat."""

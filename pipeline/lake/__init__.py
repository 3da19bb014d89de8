"""The lake: a Parquet dataset of hands, boards, placements, batches and quarantine, committed by manifests."""

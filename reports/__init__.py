"""Plotly figure builders and the HTML report assembly.

A report section is a named query from ``sql/`` plus a figure built here.
"""

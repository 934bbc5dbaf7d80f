"""csvreport: summary tables from CSV exports.

Load a file with :func:`csvreport.loader.load_records`, then turn the records
into a text table with :func:`csvreport.report.build_report`, or use the
command line::

    python -m csvreport.cli sales.csv --group-by region --numbers amount
"""

__version__ = "0.4.1"

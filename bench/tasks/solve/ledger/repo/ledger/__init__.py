"""A small household ledger: accounts, transfers, interest and statements."""

from ledger.accounts import (
    Account,
    AccountClosed,
    InsufficientFunds,
    Ledger,
    LedgerError,
    Statement,
    Transaction,
    UnknownAccount,
    average_daily_balance,
    build_statement,
    calculate_interest,
    export_csv,
    format_money,
    format_statement,
    load_ledger,
    monthly_totals,
    read_csv,
    save_ledger,
    to_money,
)

__version__ = "1.3.0"

__all__ = [
    "Account",
    "AccountClosed",
    "InsufficientFunds",
    "Ledger",
    "LedgerError",
    "Statement",
    "Transaction",
    "UnknownAccount",
    "average_daily_balance",
    "build_statement",
    "calculate_interest",
    "export_csv",
    "format_money",
    "format_statement",
    "load_ledger",
    "monthly_totals",
    "read_csv",
    "save_ledger",
    "to_money",
]

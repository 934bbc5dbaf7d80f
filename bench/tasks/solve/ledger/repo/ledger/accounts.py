"""Accounts, transactions, transfers, interest and statements.

Amounts are :class:`decimal.Decimal` rounded to cents. A transaction's amount is signed:
money coming into the account is positive, money going out is negative, so an account's
balance is the sum of its transactions.
"""

import csv
import datetime as dt
import json
import os
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

CENT = Decimal("0.01")
DAYS_PER_YEAR = 365

ACCOUNT_KINDS = ("checking", "savings", "credit")
TRANSACTION_KINDS = ("opening", "deposit", "withdrawal", "transfer_in", "transfer_out",
                     "interest", "fee")

CSV_FIELDS = ["id", "account", "date", "kind", "amount", "memo", "transfer"]


class LedgerError(Exception):
    """Base class of the errors raised by the ledger."""


class UnknownAccount(LedgerError):
    pass


class AccountClosed(LedgerError):
    pass


class InsufficientFunds(LedgerError):
    def __init__(self, account_id, amount, available):
        super().__init__(
            f"{account_id}: cannot take {amount}, only {available} available"
        )
        self.account_id = account_id
        self.amount = amount
        self.available = available


# --- money and dates ---------------------------------------------------------


def to_money(value):
    """``value`` (int, str, float or Decimal) as a Decimal rounded to cents.

    Strings may use a comma as thousands separator: ``"1,250.50"``.
    Raises ValueError for anything that is not a finite number.
    """
    if isinstance(value, Decimal):
        amount = value
    else:
        text = str(value).strip().replace(",", "")
        try:
            amount = Decimal(text)
        except InvalidOperation:
            raise ValueError(f"not an amount: {value!r}") from None
    if not amount.is_finite():
        raise ValueError(f"not an amount: {value!r}")
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def format_money(amount, currency="EUR"):
    """``1234.5`` -> ``"1,234.50 EUR"``."""
    amount = to_money(amount)
    sign = "-" if amount < 0 else ""
    return f"{sign}{abs(amount):,.2f} {currency}"


def parse_date(value):
    """A date from a date, a datetime or an ISO ``YYYY-MM-DD`` string."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value).strip())
    except ValueError:
        raise ValueError(f"not a date (YYYY-MM-DD): {value!r}") from None


def _positive(amount):
    amount = to_money(amount)
    if amount <= 0:
        raise ValueError(f"amount must be positive, got {amount}")
    return amount


# --- transactions and accounts -----------------------------------------------


@dataclass
class Transaction:
    id: int
    account_id: str
    date: dt.date
    amount: Decimal
    kind: str
    memo: str = ""
    transfer_id: int | None = None

    @property
    def is_credit(self):
        return self.amount > 0

    def describe(self):
        text = self.kind.replace("_", " ")
        return f"{text}: {self.memo}" if self.memo else text


class Account:
    """One account and its transactions, kept in date order."""

    def __init__(self, account_id, owner, kind="checking", opened=None,
                 overdraft_limit=0, interest_rate=0, currency="EUR"):
        if kind not in ACCOUNT_KINDS:
            raise ValueError(f"unknown account kind {kind!r}; expected one of {ACCOUNT_KINDS}")
        self.id = account_id
        self.owner = owner
        self.kind = kind
        self.opened = parse_date(opened) if opened else dt.date.today()
        self.overdraft_limit = to_money(overdraft_limit)
        self.interest_rate = Decimal(str(interest_rate))  # percent per year
        self.currency = currency
        self.closed_on = None
        self.transactions = []

    def __repr__(self):
        state = "open" if self.is_open else f"closed {self.closed_on}"
        return f"<Account {self.id} {self.owner!r} {self.kind} {self.balance} {state}>"

    @property
    def is_open(self):
        return self.closed_on is None

    @property
    def balance(self):
        return sum((t.amount for t in self.transactions), Decimal("0.00"))

    @property
    def available(self):
        """What can still be withdrawn: the balance plus the overdraft limit."""
        return self.balance + self.overdraft_limit

    def balance_on(self, day):
        """The balance at the end of ``day``."""
        day = parse_date(day)
        return sum((t.amount for t in self.transactions if t.date <= day), Decimal("0.00"))

    def can_withdraw(self, amount):
        return to_money(amount) <= self.available

    def post(self, transaction):
        """Add ``transaction``, after any others on the same date."""
        index = len(self.transactions)
        while index > 0 and self.transactions[index - 1].date > transaction.date:
            index -= 1
        self.transactions.insert(index, transaction)

    def history(self, kind=None, since=None, until=None):
        """The transactions, optionally only of one kind and within a date range (inclusive)."""
        since = parse_date(since) if since else None
        until = parse_date(until) if until else None
        result = []
        for transaction in self.transactions:
            if kind and transaction.kind != kind:
                continue
            if since and transaction.date < since:
                continue
            if until and transaction.date > until:
                continue
            result.append(transaction)
        return result

    def last_activity(self):
        return self.transactions[-1].date if self.transactions else None


# --- interest ----------------------------------------------------------------


def average_daily_balance(account, start, end):
    """The mean of the end-of-day balances from ``start`` to ``end``, both inclusive."""
    start, end = parse_date(start), parse_date(end)
    if end < start:
        raise ValueError("end is before start")
    days = (end - start).days + 1
    balance = account.balance_on(start - dt.timedelta(days=1))
    changes = {}
    for transaction in account.transactions:
        if start <= transaction.date <= end:
            changes[transaction.date] = changes.get(transaction.date, 0) + transaction.amount
    total = Decimal("0")
    day = start
    while day <= end:
        balance += changes.get(day, 0)
        total += balance
        day += dt.timedelta(days=1)
    return total / days


def calculate_interest(balance, annual_rate, days):
    """Simple interest on ``balance`` at ``annual_rate`` percent for ``days`` days.

    Negative balances earn nothing.
    """
    balance = Decimal(balance)
    if balance <= 0 or days <= 0:
        return Decimal("0.00")
    interest = balance * Decimal(str(annual_rate)) / 100 * days / DAYS_PER_YEAR
    return interest.quantize(CENT, rounding=ROUND_HALF_UP)


def projected_balance(account, days, as_of=None):
    """The balance after ``days`` more days of interest, if nothing else happens."""
    as_of = parse_date(as_of) if as_of else dt.date.today()
    balance = account.balance_on(as_of)
    return balance + calculate_interest(balance, account.interest_rate, days)


# --- the ledger --------------------------------------------------------------


class Ledger:
    """All accounts of a household, and the operations that move money between them."""

    def __init__(self, currency="EUR"):
        self.currency = currency
        self.accounts = {}
        self._next_transaction_id = 1
        self._next_transfer_id = 1
        self._counters = {}

    def __len__(self):
        return len(self.accounts)

    def __contains__(self, account_id):
        return account_id in self.accounts

    def __iter__(self):
        return iter(self.accounts.values())

    def _new_account_id(self, kind):
        prefix = kind[:3].upper()
        number = self._counters.get(prefix, 0) + 1
        self._counters[prefix] = number
        return f"{prefix}-{number:04d}"

    def open_account(self, owner, kind="checking", opening_balance=0, opened=None,
                     overdraft_limit=0, interest_rate=0, account_id=None):
        """Open an account and return it. A non-zero opening balance is posted on ``opened``."""
        if not owner or not str(owner).strip():
            raise ValueError("an account needs an owner")
        if account_id is None:
            account_id = self._new_account_id(kind)
        if account_id in self.accounts:
            raise LedgerError(f"account {account_id} already exists")
        account = Account(account_id, owner.strip(), kind, opened, overdraft_limit,
                          interest_rate, self.currency)
        self.accounts[account_id] = account
        opening_balance = to_money(opening_balance)
        if opening_balance:
            self._record(account, opening_balance, "opening", account.opened, "opening balance")
        return account

    def get(self, account_id):
        try:
            return self.accounts[account_id]
        except KeyError:
            raise UnknownAccount(f"no account {account_id!r}") from None

    def close_account(self, account_id, on=None):
        """Close an account. Its balance must be zero."""
        account = self.get(account_id)
        if not account.is_open:
            raise AccountClosed(f"{account_id} is already closed")
        if account.balance != 0:
            raise LedgerError(f"{account_id} still holds {account.balance}; empty it first")
        account.closed_on = parse_date(on) if on else dt.date.today()
        return account

    def _open_account(self, account_id, day):
        account = self.get(account_id)
        if not account.is_open and day >= account.closed_on:
            raise AccountClosed(f"{account_id} was closed on {account.closed_on}")
        if day < account.opened:
            raise LedgerError(f"{account_id} was only opened on {account.opened}")
        return account

    def _record(self, account, amount, kind, day, memo="", transfer_id=None):
        transaction = Transaction(self._next_transaction_id, account.id, day, amount, kind,
                                  memo, transfer_id)
        self._next_transaction_id += 1
        account.post(transaction)
        return transaction

    def deposit(self, account_id, amount, date=None, memo=""):
        day = parse_date(date) if date else dt.date.today()
        account = self._open_account(account_id, day)
        return self._record(account, _positive(amount), "deposit", day, memo)

    def withdraw(self, account_id, amount, date=None, memo=""):
        day = parse_date(date) if date else dt.date.today()
        account = self._open_account(account_id, day)
        amount = _positive(amount)
        if not account.can_withdraw(amount):
            raise InsufficientFunds(account_id, amount, account.available)
        return self._record(account, -amount, "withdrawal", day, memo)

    def transfer(self, source_id, target_id, amount, date=None, memo=""):
        """Move ``amount`` from one account to another.

        Returns the two transactions (out of the source, into the target). They share a
        ``transfer_id``.
        """
        day = parse_date(date) if date else dt.date.today()
        source = self._open_account(source_id, day)
        target = self._open_account(target_id, day)
        amount = _positive(amount)
        if not source.can_withdraw(amount):
            raise InsufficientFunds(source_id, amount, source.available)
        transfer_id = self._next_transfer_id
        self._next_transfer_id += 1
        memo = memo or f"{source_id} -> {target_id}"
        out = self._record(source, -amount, "transfer_out", day, memo, transfer_id)
        into = self._record(target, amount, "transfer_in", day, memo, transfer_id)
        return out, into

    def charge_fee(self, account_id, amount, date=None, memo="account fee"):
        """Take a fee. Fees may overdraw the account beyond its limit."""
        day = parse_date(date) if date else dt.date.today()
        account = self._open_account(account_id, day)
        return self._record(account, -_positive(amount), "fee", day, memo)

    def apply_interest(self, start, end):
        """Credit interest for the period to every open savings account with a rate.

        The interest is worked out on the average daily balance and posted on ``end``.
        Returns the interest transactions.
        """
        start, end = parse_date(start), parse_date(end)
        days = (end - start).days + 1
        posted = []
        for account in self.accounts.values():
            if account.kind != "savings" or not account.is_open or not account.interest_rate:
                continue
            balance = average_daily_balance(account, max(start, account.opened), end)
            interest = calculate_interest(balance, account.interest_rate, days)
            if interest > 0:
                memo = f"interest {start} to {end}"
                posted.append(self._record(account, interest, "interest", end, memo))
        print(f"interest: credited {len(posted)} account(s) for {start} to {end}")
        return posted

    def reverse(self, transaction_id, date=None):
        """Undo a transaction by posting its opposite; transfers are sent back.

        Returns the new transaction (for a transfer, the pair of new transactions).
        """
        original = self.find_transaction(transaction_id)
        if original is None:
            raise LedgerError(f"no transaction #{transaction_id}")
        day = parse_date(date) if date else dt.date.today()
        memo = f"reversal of #{original.id}"
        if original.transfer_id is not None:
            halves = [t for t in self.transactions() if t.transfer_id == original.transfer_id]
            out = next(t for t in halves if t.kind == "transfer_out")
            into = next(t for t in halves if t.kind == "transfer_in")
            return self.transfer(into.account_id, out.account_id, into.amount, day, memo)
        account = self._open_account(original.account_id, day)
        kind = "withdrawal" if original.amount > 0 else "deposit"
        return self._record(account, -original.amount, kind, day, memo)

    def search(self, text):
        """The transactions whose memo contains ``text`` (ignoring case), in date order."""
        needle = text.lower()
        return [t for t in self.transactions() if needle in t.memo.lower()]

    def transactions(self, account_id=None):
        """Every transaction (or those of one account) in date order, then by id."""
        if account_id is not None:
            return list(self.get(account_id).transactions)
        every = [t for account in self.accounts.values() for t in account.transactions]
        return sorted(every, key=lambda t: (t.date, t.id))

    def find_transaction(self, transaction_id):
        for account in self.accounts.values():
            for transaction in account.transactions:
                if transaction.id == transaction_id:
                    return transaction
        return None

    def total_balance(self, owner=None):
        """The sum of the balances of all open accounts (of one owner, if given)."""
        return sum(
            (a.balance for a in self.accounts.values()
             if a.is_open and (owner is None or a.owner == owner)),
            Decimal("0.00"),
        )

    def owners(self):
        return sorted({account.owner for account in self.accounts.values()})

    def statement(self, account_id, start, end):
        return build_statement(self.get(account_id), start, end)

    def validate(self):
        """Check the books. Returns a list of problems, empty when all is well."""
        problems = []
        seen_ids = set()
        transfers = {}
        for account in self.accounts.values():
            previous = None
            for transaction in account.transactions:
                where = f"{account.id} #{transaction.id}"
                if transaction.id in seen_ids:
                    problems.append(f"{where}: duplicate transaction id")
                seen_ids.add(transaction.id)
                if transaction.account_id != account.id:
                    problems.append(f"{where}: filed under the wrong account "
                                    f"({transaction.account_id})")
                if transaction.kind not in TRANSACTION_KINDS:
                    problems.append(f"{where}: unknown kind {transaction.kind!r}")
                if transaction.amount != to_money(transaction.amount):
                    problems.append(f"{where}: amount {transaction.amount} is not in cents")
                if transaction.amount == 0:
                    problems.append(f"{where}: zero amount")
                if transaction.date < account.opened:
                    problems.append(f"{where}: dated before the account was opened")
                if account.closed_on and transaction.date > account.closed_on:
                    problems.append(f"{where}: dated after the account was closed")
                if previous and transaction.date < previous.date:
                    problems.append(f"{where}: out of date order")
                if transaction.transfer_id is not None:
                    transfers.setdefault(transaction.transfer_id, []).append(transaction)
                previous = transaction
            if not account.is_open and account.balance != 0:
                problems.append(f"{account.id}: closed with a balance of {account.balance}")
        for transfer_id, halves in sorted(transfers.items()):
            kinds = sorted(t.kind for t in halves)
            if kinds != ["transfer_in", "transfer_out"]:
                problems.append(f"transfer {transfer_id}: expected one out and one in, "
                                f"found {kinds}")
            elif sum(t.amount for t in halves) != 0:
                problems.append(f"transfer {transfer_id}: the two halves do not cancel out")
            elif halves[0].date != halves[1].date:
                problems.append(f"transfer {transfer_id}: the two halves have different dates")
        return problems


# --- saving and loading ------------------------------------------------------


def ledger_to_dict(ledger):
    """The whole ledger as plain data (for ``json.dump``)."""
    accounts = []
    for account in ledger.accounts.values():
        accounts.append({
            "id": account.id,
            "owner": account.owner,
            "kind": account.kind,
            "opened": account.opened.isoformat(),
            "closed_on": account.closed_on.isoformat() if account.closed_on else None,
            "overdraft_limit": str(account.overdraft_limit),
            "interest_rate": str(account.interest_rate),
            "transactions": [transaction_row(t) for t in account.transactions],
        })
    return {"currency": ledger.currency, "accounts": accounts}


def ledger_from_dict(data):
    """Rebuild a ledger saved with :func:`ledger_to_dict`."""
    ledger = Ledger(data.get("currency", "EUR"))
    last_transaction = last_transfer = 0
    for item in data["accounts"]:
        account = Account(item["id"], item["owner"], item["kind"], item["opened"],
                          item.get("overdraft_limit", 0), item.get("interest_rate", 0),
                          ledger.currency)
        if item.get("closed_on"):
            account.closed_on = parse_date(item["closed_on"])
        for row in item["transactions"]:
            transfer = row.get("transfer")
            transaction = Transaction(int(row["id"]), account.id, parse_date(row["date"]),
                                      to_money(row["amount"]), row["kind"], row.get("memo", ""),
                                      int(transfer) if transfer not in (None, "") else None)
            account.post(transaction)
            last_transaction = max(last_transaction, transaction.id)
            last_transfer = max(last_transfer, transaction.transfer_id or 0)
        ledger.accounts[account.id] = account
        prefix, _, number = account.id.partition("-")
        if number.isdigit():
            ledger._counters[prefix] = max(ledger._counters.get(prefix, 0), int(number))
    ledger._next_transaction_id = last_transaction + 1
    ledger._next_transfer_id = last_transfer + 1
    return ledger


def save_ledger(ledger, path):
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(ledger_to_dict(ledger), handle, indent=2)


def load_ledger(path):
    with open(path, encoding="utf-8") as handle:
        return ledger_from_dict(json.load(handle))


# --- statements --------------------------------------------------------------


@dataclass
class StatementLine:
    date: dt.date
    description: str
    amount: Decimal
    balance: Decimal


@dataclass
class Statement:
    account_id: str
    owner: str
    start: dt.date
    end: dt.date
    opening_balance: Decimal
    closing_balance: Decimal
    currency: str = "EUR"
    lines: list = field(default_factory=list)

    @property
    def money_in(self):
        return sum((line.amount for line in self.lines if line.amount > 0), Decimal("0.00"))

    @property
    def money_out(self):
        return -sum((line.amount for line in self.lines if line.amount < 0), Decimal("0.00"))


def build_statement(account, start, end):
    """The statement of ``account`` for the period from ``start`` to ``end``.

    Both dates belong to the period. The opening balance is the balance at the end of the
    day before ``start``.
    """
    start, end = parse_date(start), parse_date(end)
    if end < start:
        raise ValueError(f"statement period ends ({end}) before it starts ({start})")
    opening = account.balance_on(start - dt.timedelta(days=1))
    running = opening
    lines = []
    for transaction in account.transactions:
        if start <= transaction.date < end:
            running += transaction.amount
            lines.append(StatementLine(transaction.date, transaction.describe(),
                                       transaction.amount, running))
    return Statement(account.id, account.owner, start, end, opening, running,
                     account.currency, lines)


def format_statement(statement, width=72):
    """The statement as plain text, one line per transaction."""
    currency = statement.currency
    rule = "-" * width
    out = [
        f"Statement for {statement.account_id} ({statement.owner})",
        f"Period: {statement.start} to {statement.end}",
        rule,
        f"{'Opening balance':<{width - 20}}{format_money(statement.opening_balance, currency):>20}",
    ]
    description_width = width - 12 - 16 - 16
    for line in statement.lines:
        description = line.description
        if len(description) > description_width - 1:
            description = description[:description_width - 4] + "..."
        out.append(
            f"{line.date.isoformat():<12}{description:<{description_width}}"
            f"{format_money(line.amount, currency):>16}{format_money(line.balance, currency):>16}"
        )
    out.append(rule)
    out.append(f"{'Money in':<{width - 20}}{format_money(statement.money_in, currency):>20}")
    out.append(f"{'Money out':<{width - 20}}{format_money(statement.money_out, currency):>20}")
    out.append(f"{'Closing balance':<{width - 20}}"
               f"{format_money(statement.closing_balance, currency):>20}")
    return "\n".join(out)


def monthly_totals(transactions):
    """``{"YYYY-MM": (money_in, money_out)}`` for the given transactions, months in order."""
    totals = {}
    for transaction in transactions:
        month = transaction.date.strftime("%Y-%m")
        money_in, money_out = totals.get(month, (Decimal("0.00"), Decimal("0.00")))
        if transaction.amount > 0:
            money_in += transaction.amount
        else:
            money_out -= transaction.amount
        totals[month] = (money_in, money_out)
    return dict(sorted(totals.items()))


# --- CSV ---------------------------------------------------------------------


def transaction_row(transaction):
    return {
        "id": transaction.id,
        "account": transaction.account_id,
        "date": transaction.date.isoformat(),
        "kind": transaction.kind,
        "amount": f"{transaction.amount:.2f}",
        "memo": transaction.memo,
        "transfer": "" if transaction.transfer_id is None else transaction.transfer_id,
    }


def export_csv(transactions, path, delimiter=","):
    """Write ``transactions`` to a CSV file with a header row and return the file's path.

    ``.csv`` is added to the file name when it has no extension.
    """
    if "." not in os.path.basename(path):
        path = path + ".csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS, delimiter=delimiter)
        writer.writeheader()
        for transaction in transactions:
            writer.writerow(transaction_row(transaction))
    return path


def read_csv(path, delimiter=","):
    """Read transactions written by :func:`export_csv`.

    Raises ValueError naming the line of the first row that cannot be read.
    """
    transactions = []
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        missing = set(CSV_FIELDS) - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"{path}: missing columns {', '.join(sorted(missing))}")
        for row in reader:
            try:
                transfer = row["transfer"].strip()
                transactions.append(Transaction(
                    id=int(row["id"]),
                    account_id=row["account"],
                    date=parse_date(row["date"]),
                    amount=to_money(row["amount"]),
                    kind=row["kind"],
                    memo=row["memo"],
                    transfer_id=int(transfer) if transfer else None,
                ))
            except (ValueError, KeyError) as exc:
                raise ValueError(f"{path}, line {reader.line_num}: {exc}") from None
    return transactions

//! `-compact`: one row per machine, as HTCondor's status.cpp folds slot rows
//! (`reduce_slot_results`, `fold_slot_result`): a static slot's row counts itself; the rows of
//! the other slots of its machine and slot type are added into the machine's first row (free
//! CPUs and memory of slots that are not busy, the largest slot, job starts, the slot count),
//! and their state letters are merged (`*` where they differ). A partitionable slot's row
//! carries its dynamic slots' states, rolled up from `ChildState` and `ChildActivity`.

use crate::classad::{ClassAd, Expr, Value};
use crate::output::mask::{Cell, Row};
use crate::output::render::lookup_value;

use super::views::{
    activity_number, state_activity_code, state_number, ACT_THRESHOLD, NO_ACT, NO_STATE,
    PREEMPTING, STATE_THRESHOLD, VACATING,
};

/// The row's data was folded into another row.
pub const FOLDED: u32 = 0x0004;
/// The machine's first row has been set up for folding.
const COOKED: u32 = 0x0001;
/// Not the first row of its machine (another slot type).
const ROWN: u32 = 0x0010;
pub const PARTITIONABLE: u32 = 0x0400;
pub const DYNAMIC: u32 = 0x0200;
pub const BACKFILL: u32 = 0x0800;
/// A claimed partitionable slot (reserved for one schedd).
pub const AP_RESERVED: u32 = 0x1000;
/// Claimed, Matched or Preempting.
pub const BUSY: u32 = 0x2000;
/// Owner, Drained, Shutdown or Delete.
pub const UNAVAIL: u32 = 0x4000;
/// A partitionable slot with no CPU left.
pub const EXHAUSTED: u32 = 0x8000;

/// Where the folded columns are in the compact table (`startdCompact_ixCol_*`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Cols {
    pub machine_slot: Option<usize>,
    pub platform: Option<usize>,
    pub slots: Option<usize>,
    pub free_cpus: Option<usize>,
    pub free_mem: Option<usize>,
    pub act_code: Option<usize>,
    pub job_starts: Option<usize>,
    pub max_slot_mem: Option<usize>,
}

/// One row of the listing, with what folding needs to know about it.
#[derive(Debug)]
pub struct Slot {
    pub key: String,
    pub row: Row,
    pub flags: u32,
    /// The slot's name before its `@`.
    pub label: String,
}

/// `getNumber`: the cell's number, 0 when it is invalid or not a number.
fn number(row: &Row, ix: Option<usize>) -> f64 {
    match ix.and_then(|i| row.get(i)) {
        Some(Cell::Int(i)) => *i as f64,
        Some(Cell::Real(r)) => *r,
        Some(Cell::Value(v)) => v.as_number_real().unwrap_or(0.0),
        _ => 0.0,
    }
}

/// `getNumber` into an integer (reals truncated).
fn int_number(row: &Row, ix: Option<usize>) -> Option<i64> {
    match ix.and_then(|i| row.get(i)) {
        Some(Cell::Int(i)) => Some(*i),
        Some(Cell::Real(r)) => Some(*r as i64),
        Some(Cell::Value(v)) => v.as_number_int(),
        _ => None,
    }
}

/// The cell's text, if it holds a string.
pub fn text(row: &Row, ix: usize) -> Option<String> {
    match row.get(ix)? {
        Cell::Str(s) => Some(s.clone()),
        Cell::Value(Value::Str(s)) => Some(s.to_string()),
        _ => None,
    }
}

/// Sets a cell's value, keeping it invalid if it was (`SetRealValue` without
/// `set_col_valid`).
fn set_value(row: &mut Row, ix: usize, value: Cell) {
    if let Some(cell) = row.get_mut(ix) {
        if cell.is_valid() {
            *cell = value;
        }
    }
}

/// Sets a cell's value and makes it valid.
fn set_valid(row: &mut Row, ix: usize, value: Cell) {
    if let Some(cell) = row.get_mut(ix) {
        *cell = value;
    }
}

/// The flags of a slot's row, from its ad.
pub fn slot_flags(ad: &ClassAd) -> u32 {
    use crate::output::render::{lookup_bool, lookup_real, lookup_str};
    let mut flags = 0;
    if lookup_bool(ad, "BackfillSlot") == Some(true) {
        flags |= BACKFILL;
    }
    let pslot = lookup_bool(ad, "PartitionableSlot") == Some(true);
    if pslot {
        flags |= PARTITIONABLE;
        if lookup_real(ad, "Cpus").is_some_and(|c| c < 0.1) {
            flags |= EXHAUSTED;
        }
    } else if lookup_bool(ad, "DynamicSlot") == Some(true) {
        flags |= DYNAMIC;
    }
    let state = lookup_str(ad, "State")
        .map(|s| state_number(&s))
        .unwrap_or(NO_STATE);
    use super::views::{CLAIMED, DELETE, DRAINED, MATCHED, OWNER, SHUTDOWN};
    if pslot && state == CLAIMED {
        flags |= AP_RESERVED;
    } else if state == MATCHED || state == CLAIMED || state == PREEMPTING {
        flags |= BUSY;
    } else if state == DRAINED || state == OWNER || state == SHUTDOWN || state == DELETE {
        flags |= UNAVAIL;
    }
    flags
}

/// The consensus of a partitionable slot's children's states (or activities): the one they
/// all share, the first `wins` value seen, or `threshold` when they differ.
fn consensus(
    ad: &ClassAd,
    attr: &str,
    number: fn(&str) -> usize,
    wins: usize,
    threshold: usize,
) -> usize {
    let mut consensus = 0;
    if let Some(Value::List(list)) = lookup_value(ad, attr) {
        for item in list.items.iter() {
            let Expr::Lit(Value::Str(s)) = item else {
                continue;
            };
            let n = number(s);
            if n >= threshold || n == consensus {
                continue;
            }
            if consensus == 0 {
                consensus = n;
            } else if n == wins {
                consensus = n;
                break;
            } else {
                consensus = threshold;
            }
        }
    }
    consensus
}

/// Rolls a partitionable slot's children's states and activities into its `ST` column.
pub fn roll_up_children(row: &mut Row, ad: &ClassAd, flags: u32, ix: usize) {
    let state = consensus(ad, "ChildState", state_number, PREEMPTING, STATE_THRESHOLD);
    let activity = consensus(
        ad,
        "ChildActivity",
        activity_number,
        VACATING,
        ACT_THRESHOLD,
    );
    let own: Vec<u8> = text(row, ix).unwrap_or_default().bytes().take(3).collect();
    let code = state_activity_code(state, activity).into_bytes();
    let (bsc, bac) = (code[0], code[1]);
    let (a0, a1) = (
        own.first().copied().unwrap_or(0),
        own.get(1).copied().unwrap_or(0),
    );
    let (mut asc, mut aac) = (a0, a1);
    if asc == b'U' && aac == b'i' && flags & EXHAUSTED != 0 {
        asc = bsc;
        aac = bac;
    } else if asc == b'D' && bsc == b'C' {
        asc = bsc;
    }
    if bsc == b'P' {
        asc = bsc;
    }
    if bac == b'v' {
        aac = bac;
    }
    if state != NO_STATE && asc != bsc {
        asc = b'*';
    }
    if activity != NO_ACT && aac != bac {
        aac = b'*';
    }
    if a0 != asc || a1 != aac {
        let s = String::from_utf8_lossy(&[asc, aac])
            .trim_end_matches('\0')
            .to_owned();
        set_value(row, ix, Cell::Str(s));
    }
}

/// `fold_slot_result`: sets up `aa` (a static slot's row) for folding, then folds `bb` into it.
fn fold(aa: &mut Slot, bb: Option<&Slot>, c: &Cols) {
    if aa.row.is_empty() {
        return;
    }
    if aa.flags & PARTITIONABLE == 0 && aa.flags & COOKED == 0 {
        if let (Some(fm), Some(ms)) = (c.free_mem, c.max_slot_mem) {
            let amem = number(&aa.row, Some(fm));
            set_valid(&mut aa.row, ms, Cell::Real(amem));
        }
        if aa.flags & BUSY != 0 {
            if let Some(fc) = c.free_cpus {
                set_value(&mut aa.row, fc, Cell::Int(0));
            }
            if let Some(fm) = c.free_mem {
                set_value(&mut aa.row, fm, Cell::Real(0.0));
            }
        }
        if let Some(sl) = c.slots {
            set_valid(&mut aa.row, sl, Cell::Int(1));
        }
        aa.flags |= COOKED;
    }
    let Some(bb) = bb else {
        return;
    };
    let partitionable = bb.flags & PARTITIONABLE != 0;
    let mut bmem = 0.0;
    if let Some(ms) = c.max_slot_mem {
        let amem = number(&aa.row, Some(ms));
        bmem = number(&bb.row, if partitionable { Some(ms) } else { c.free_mem });
        set_value(&mut aa.row, ms, Cell::Real(amem.max(bmem)));
    }
    if partitionable || bb.flags & BUSY == 0 {
        if let Some(fm) = c.free_mem {
            let amem = number(&aa.row, Some(fm));
            set_value(&mut aa.row, fm, Cell::Real(bmem + amem));
        }
        if let Some(fc) = c.free_cpus {
            let a = int_number(&aa.row, Some(fc)).unwrap_or(0);
            let b = int_number(&bb.row, Some(fc)).unwrap_or(0);
            set_value(
                &mut aa.row,
                fc,
                Cell::Int((a as i32).wrapping_add(b as i32) as i64),
            );
        }
    }
    if let Some(sl) = c.slots {
        let aslots = match int_number(&aa.row, Some(sl)) {
            Some(n) if aa.row[sl].is_valid() => n,
            _ => {
                set_valid(&mut aa.row, sl, Cell::Int(1));
                1
            }
        };
        let bslots = if partitionable {
            int_number(&bb.row, Some(sl))
                .filter(|_| bb.row[sl].is_valid())
                .unwrap_or(0)
        } else {
            1
        };
        set_value(&mut aa.row, sl, Cell::Int(aslots + bslots));
    }
    if let Some(js) = c.job_starts {
        let sum = number(&aa.row, Some(js)) + number(&bb.row, Some(js));
        set_value(&mut aa.row, js, Cell::Real(sum));
    }
    if let Some(ac) = c.act_code {
        let chars = |row: &Row| -> Vec<u8> {
            let mut v: Vec<u8> = row
                .get(ac)
                .filter(|c| c.is_valid())
                .and_then(|_| text(row, ac))
                .unwrap_or_default()
                .bytes()
                .take(3)
                .collect();
            v.resize(3, 0);
            v
        };
        let (mut ast, bst) = (chars(&aa.row), chars(&bb.row));
        let (asc, aac) = (
            if ast[0] != bst[0] { b'*' } else { ast[0] },
            if ast[1] != bst[1] { b'*' } else { ast[1] },
        );
        if ast[0] != asc || ast[1] != aac {
            ast[0] = asc;
            ast[1] = aac;
            let end = ast.iter().position(|&b| b == 0).unwrap_or(ast.len());
            let s = String::from_utf8_lossy(&ast[..end]).into_owned();
            set_value(&mut aa.row, ac, Cell::Str(s));
        }
    }
}

/// `same_primary_key`: whether two sort keys name the same machine (up to the first newline),
/// and whether they differ only in the slot type number after a colon.
fn same_machine(aa: &str, bb: &str) -> (bool, bool) {
    let (a, b) = (aa.as_bytes(), bb.as_bytes());
    let mut type_mismatch = false;
    if a.is_empty() {
        return (false, false);
    }
    let mut got_colon = false;
    for (ix, &ch) in a.iter().enumerate() {
        let other = b.get(ix).copied().unwrap_or(0);
        if other != ch {
            if got_colon && ch.is_ascii_digit() && other.is_ascii_digit() {
                type_mismatch = true;
            } else {
                return (false, type_mismatch);
            }
        }
        if ch == b'\n' {
            return (true, type_mismatch);
        }
        got_colon = ch == b':';
    }
    (b.len() == a.len(), type_mismatch)
}

/// `reduce_slot_results`: folds the rows (sorted by key) of each machine and slot type into
/// the first.
pub fn reduce(slots: &mut [Slot], c: &Cols) {
    if slots.is_empty() {
        return;
    }
    let mut first = 0;
    let mut fold_last = false;
    for it in 1..slots.len() {
        let (same, type_mismatch) = same_machine(&slots[it].key, &slots[first].key);
        if same && !type_mismatch {
            let (head, tail) = slots.split_at_mut(it);
            fold(&mut head[first], Some(&tail[0]), c);
            slots[it].flags |= FOLDED;
            fold_last = false;
        } else {
            fold(&mut slots[first], None, c);
            if let (Some(ms), true, true) = (c.machine_slot, same, type_mismatch) {
                slots[it].flags |= ROWN;
                if !slots[it].label.is_empty() {
                    let name = format!("   {}", slots[it].label);
                    set_value(&mut slots[it].row, ms, Cell::Str(name));
                }
            }
            first = it;
            fold_last = true;
        }
    }
    if fold_last {
        fold(&mut slots[first], None, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machines_and_slot_types_by_key() {
        assert_eq!(same_machine("a:1\nx\n0001", "a:1\ny\n0002"), (true, false));
        assert_eq!(same_machine("a:1\nx\n0001", "a:2\ny\n0002"), (true, true));
        assert_eq!(same_machine("a:1\nx", "b:1\nx"), (false, false));
        assert_eq!(same_machine("", "x"), (false, false));
    }
}

//! Custom machine resources: `MACHINE_RESOURCE_<name>` (a count, or a list of instance ids),
//! `MACHINE_RESOURCE_INVENTORY_<name>` (a program whose output ad says what there is),
//! `OFFLINE_MACHINE_RESOURCE_<name>`, `MACHINE_RESOURCE_NAMES`, and the GPUs HTCondor finds
//! by default, as src/condor_startd.V6/ResAttributes.cpp's `init_machine_resources` reads
//! them.
//!
//! A resource with instance ids ("non-fungible", e.g. `GPUs` = `CUDA0, CUDA1`) hands concrete
//! instances to slots: each [`Device`] records the slot that owns it and, when a partitionable
//! slot has lent it to one of its dynamic slots, that slot's sub-id. A resource given as a
//! count is only a number.
//!
//! GPUs: HTCondor runs `condor_gpu_discovery` when `use feature : GPUs` is configured
//! (`MACHINE_RESOURCE_INVENTORY_GPUs`) or, when no GPU knob is, because of
//! `STARTD_DETECT_GPUS` (on by default; set it to `false` for no GPUs resource). condorlite runs
//! that program when it is installed; otherwise it asks `nvidia-smi -L` and makes the same
//! inventory (ids `GPU-<first 8 hex digits of the UUID>`, properties `DeviceName` and
//! `DeviceUuid`), and without `nvidia-smi` the machine has 0 GPUs, as `condor_gpu_discovery`
//! reports on a machine without any.

use std::collections::BTreeMap;
use std::path::Path;

use super::machine::Probe;
use super::StartdError;
use crate::classad::ad::cmp_ignore_case;
use crate::classad::parser::parse_old_expr;
use crate::classad::{eval_expr, parse_old_ad, ClassAd, Expr, Value};
use crate::config::{Config, View};

/// Names no custom resource may take.
const RESERVED: [&str; 7] = ["CPU", "CPUS", "DISK", "SWAP", "MEM", "MEMORY", "RAM"];

/// One instance of a non-fungible resource.
#[derive(Clone, Debug, PartialEq)]
pub struct Device {
    pub id: String,
    /// The slot id owning it (0: none yet).
    pub owner: u32,
    /// The dynamic slot (sub-id) of `owner` it is lent to (0: none).
    pub dyn_owner: u32,
}

/// One custom resource of the machine.
#[derive(Clone, Debug)]
pub struct MachineResource {
    /// The name as the configuration spells it (`GPUs`).
    pub name: String,
    /// How many there are, offline instances not counted (`Total<name>`, `Detected<name>`).
    pub quantity: f64,
    /// The instances, for a resource given as ids (offline ones left out).
    pub devices: Vec<Device>,
    /// Whether the resource has instance ids at all.
    pub non_fungible: bool,
    /// Instances configured offline (`Offline<name>`).
    pub offline: Vec<String>,
    /// Properties of instances, by id (from an inventory program's nested ads).
    pub props: BTreeMap<String, ClassAd>,
}

/// The machine's custom resources, sorted by name as HTCondor's case-insensitive map keeps
/// them, and the extra attributes inventory programs reported.
#[derive(Clone, Debug, Default)]
pub struct MachineResources {
    list: Vec<MachineResource>,
    /// Attributes of inventory output other than the resource itself (published in every
    /// slot ad, e.g. `DetectedGPUs`, `CUDADriverVersion`).
    pub inventory_attrs: ClassAd,
}

/// A resource's value: a number, else a classad expression with a numeric value, else a list
/// of instance ids (HTCondor's `parse_user_resource_config`).
fn parse_value(value: &str) -> (f64, Vec<String>) {
    let t = value.trim();
    if let Ok(n) = t.parse::<f64>() {
        return (n, Vec::new());
    }
    if let Ok(e) = parse_old_expr(t) {
        if let Ok(v) = eval_expr(&e, None, None) {
            if let Some(n) = v.as_number_real().filter(|_| v.is_number()) {
                return (n, Vec::new());
            }
        }
    }
    let ids: Vec<String> = t
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    (ids.len() as f64, ids)
}

/// HTCondor's `cleanStringForUseAsAttr(s, '_')`: every character that may not appear in an
/// attribute name becomes `_`, runs of `_` collapse.
pub fn attr_safe(s: &str) -> String {
    let mut out = String::new();
    for c in s.trim().chars() {
        let c = if c == '_' || c.is_ascii_alphanumeric() {
            c
        } else {
            '_'
        };
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    out
}

/// Splits a command line on whitespace, honouring single and double quotes.
fn split_command(cmd: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in cmd.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    args.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            None => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        args.push(cur);
    }
    args
}

/// What `nvidia-smi -L` lists, as the inventory ad `condor_gpu_discovery -properties` would
/// print for it: `DetectedGPUs` and one nested ad of properties per GPU.
pub fn gpu_inventory_from_nvidia_smi(listing: Option<&str>) -> ClassAd {
    let mut ad = ClassAd::new();
    let mut ids = Vec::new();
    for line in listing.unwrap_or_default().lines() {
        let line = line.trim();
        // "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-4f7b2c3e-...)"; MIG lines are indented
        // and start with "MIG", and are not whole GPUs.
        let Some(rest) = line.strip_prefix("GPU ") else {
            continue;
        };
        let Some((_, desc)) = rest.split_once(':') else {
            continue;
        };
        let (name, uuid) = match desc.rsplit_once("(UUID:") {
            Some((n, u)) => (n.trim(), u.trim().trim_end_matches(')').trim()),
            None => (desc.trim(), ""),
        };
        let bare = uuid.strip_prefix("GPU-").unwrap_or(uuid);
        let id = if bare.is_empty() {
            format!("CUDA{}", ids.len())
        } else {
            format!("GPU-{}", bare.chars().take(8).collect::<String>())
        };
        let mut props = ClassAd::new();
        props.insert("id", Expr::lit(id.as_str()));
        props.insert("DeviceName", Expr::lit(name));
        if !bare.is_empty() {
            props.insert("DeviceUuid", Expr::lit(bare));
        }
        ad.insert(&attr_safe(&id), Expr::Ad(Box::new(props)));
        ids.push(id);
    }
    if ids.is_empty() {
        ad.insert("DetectedGPUs", Expr::lit(0i64));
    } else {
        ad.insert("DetectedGPUs", Expr::lit(ids.join(", ")));
    }
    ad
}

impl MachineResource {
    fn new(name: &str, quantity: f64) -> MachineResource {
        MachineResource {
            name: name.to_owned(),
            quantity,
            devices: Vec::new(),
            non_fungible: false,
            offline: Vec::new(),
            props: BTreeMap::new(),
        }
    }

    /// Fills quantity, devices and offline ids from a configured value and offline list.
    fn set_from(&mut self, value: &str, offline: Option<&str>) {
        let (offline_n, offline_ids) = offline.map(parse_value).unwrap_or_default();
        let (n, ids) = parse_value(value);
        self.devices.clear();
        self.offline.clear();
        if ids.is_empty() {
            self.quantity = (n.max(0.0) - offline_n).max(0.0);
            self.offline = offline_ids;
            return;
        }
        self.non_fungible = true;
        for id in ids {
            if offline_ids.contains(&id) {
                self.offline.push(id);
            } else {
                self.devices.push(Device {
                    id,
                    owner: 0,
                    dyn_owner: 0,
                });
            }
        }
        self.quantity = self.devices.len() as f64;
    }

    /// Whether instance `ix` satisfies `constraint`: a number is an index, a string an id,
    /// anything else is evaluated against the instance's properties (`DevIdMatches`).
    fn matches(&self, ix: usize, constraint: Option<&Expr>) -> bool {
        let Some(c) = constraint else {
            return true;
        };
        match c.as_literal() {
            Some(Value::Int(i)) => return *i == ix as i64,
            Some(Value::Str(s)) => return s.eq_ignore_ascii_case(&self.devices[ix].id),
            _ => {}
        }
        self.props
            .get(&self.devices[ix].id)
            .is_some_and(|p| p.eval_expr(c, None).as_bool_equiv() == Some(true))
    }
}

impl MachineResources {
    /// Reads the custom resources the configuration defines, running inventory programs and
    /// GPU detection as needed.
    pub fn from_config(
        config: &Config,
        cfg: View<'_>,
        probe: &Probe,
    ) -> Result<MachineResources, StartdError> {
        let mut res = MachineResources::default();
        let defined = |name: &str| -> Result<bool, StartdError> { Ok(cfg.string(name)?.is_some()) };

        // GPUs found by default, unless a GPUs knob says otherwise.
        if !defined("MACHINE_RESOURCE_INVENTORY_GPUS")? && !defined("MACHINE_RESOURCE_GPUS")? {
            if let Some(args) = cfg.string("STARTD_DETECT_GPUS")? {
                let a = args.trim();
                let off = a.eq_ignore_ascii_case("false") || a == "0";
                let invalid = a.eq_ignore_ascii_case("true") || a == "1";
                if !off && !invalid {
                    let cmd =
                        cfg.expand("$(LIBEXEC)/condor_gpu_discovery $(STARTD_DETECT_GPUS)")?;
                    res.run_inventory(cfg, "GPUs", "STARTD_DETECT_GPUS", &cmd, probe)?;
                }
            }
        }

        let mut knobs: Vec<String> = config
            .entries()
            .iter()
            .map(|e| e.name.clone())
            .filter(|n| {
                n.len() > 17
                    && n[..17].eq_ignore_ascii_case("MACHINE_RESOURCE_")
                    && !n.eq_ignore_ascii_case("MACHINE_RESOURCE_NAMES")
            })
            .collect();
        knobs.sort_by(|a, b| cmp_ignore_case(a, b));
        knobs.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        for knob in knobs {
            let Some(value) = cfg.string(&knob)? else {
                continue;
            };
            let tag = &knob[17..];
            if tag.len() > 10 && tag[..10].eq_ignore_ascii_case("INVENTORY_") {
                let tag = &tag[10..];
                res.run_inventory(cfg, tag, &knob, &value, probe)?;
            } else {
                let offline = cfg.string(&format!("OFFLINE_{knob}"))?;
                res.entry(tag).set_from(&value, offline.as_deref());
            }
        }

        let allowed = cfg.list("MACHINE_RESOURCE_NAMES")?;
        if !allowed.is_empty() {
            res.list
                .retain(|r| allowed.iter().any(|a| a.eq_ignore_ascii_case(&r.name)));
        }
        if let Some(r) = res
            .list
            .iter()
            .find(|r| RESERVED.iter().any(|n| n.eq_ignore_ascii_case(&r.name)))
        {
            return Err(StartdError::ReservedResource(r.name.clone()));
        }
        Ok(res)
    }

    /// The entry for `tag`, created (in sorted place) if new.
    fn entry(&mut self, tag: &str) -> &mut MachineResource {
        let pos = self
            .list
            .binary_search_by(|r| cmp_ignore_case(&r.name, tag));
        let i = match pos {
            Ok(i) => i,
            Err(i) => {
                self.list.insert(i, MachineResource::new(tag, 0.0));
                i
            }
        };
        &mut self.list[i]
    }

    /// Runs an inventory program (or, for `condor_gpu_discovery` when it is not installed,
    /// `nvidia-smi -L`) and takes resource `tag` from its output ad.
    fn run_inventory(
        &mut self,
        cfg: View<'_>,
        tag: &str,
        knob: &str,
        command: &str,
        probe: &Probe,
    ) -> Result<(), StartdError> {
        let args = split_command(command);
        let Some(program) = args.first() else {
            return Ok(());
        };
        let is_gpu_discovery = Path::new(program)
            .file_name()
            .is_some_and(|f| f == "condor_gpu_discovery");
        let ad = if is_gpu_discovery && !Path::new(program).is_file() {
            gpu_inventory_from_nvidia_smi((probe.nvidia_smi)().as_deref())
        } else {
            let fail = |reason: String| StartdError::Inventory {
                knob: knob.to_owned(),
                command: command.to_owned(),
                reason,
            };
            let out = std::process::Command::new(program)
                .args(&args[1..])
                .stdin(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .output()
                .map_err(|e| fail(e.to_string()))?;
            let text = String::from_utf8_lossy(&out.stdout);
            parse_old_ad(&text).map_err(|e| fail(format!("its output is not a ClassAd: {e}")))?
        };
        self.take_inventory(cfg, tag, ad)
    }

    /// Takes resource `tag` from an inventory ad (HTCondor's
    /// `init_machine_resource_from_script`): `Detected<tag>` (ids or a count),
    /// `Offline<tag>` or `OFFLINE_MACHINE_RESOURCE_<tag>`, nested ads as instance properties
    /// (`common` for all of them); the rest of the ad is published as is.
    fn take_inventory(
        &mut self,
        cfg: View<'_>,
        tag: &str,
        mut ad: ClassAd,
    ) -> Result<(), StartdError> {
        let offline = match ad.eval_attr(&format!("Offline{tag}")).as_str() {
            Some(s) => Some(s.to_owned()),
            None => cfg.string(&format!("OFFLINE_MACHINE_RESOURCE_{tag}"))?,
        };
        let detected = ad.eval_attr(&format!("Detected{tag}"));
        let value = match &detected {
            Value::Str(s) => s.to_string(),
            v => v.as_number_real().unwrap_or(0.0).to_string(),
        };
        let entry = self.entry(tag);
        entry.props.clear();
        entry.set_from(&value, offline.as_deref());
        let ids: Vec<String> = entry
            .devices
            .iter()
            .map(|d| d.id.clone())
            .chain(entry.offline.iter().cloned())
            .collect();
        let nested: Vec<(String, ClassAd)> = ad
            .iter()
            .filter_map(|(n, e)| match e {
                Expr::Ad(a) => Some((n.to_owned(), (**a).clone())),
                _ => None,
            })
            .collect();
        if let Some((n, common)) = nested
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("common"))
        {
            for id in &ids {
                entry.props.entry(id.clone()).or_default().update(common);
            }
            ad.remove(n);
        }
        for (n, props) in &nested {
            if n.eq_ignore_ascii_case("common") {
                continue;
            }
            let id = props
                .eval_attr("id")
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| n.clone());
            if ids.contains(&id) {
                let p = entry.props.entry(id).or_default();
                p.update(props);
                p.remove("id");
                ad.remove(n);
            }
        }
        ad.remove(tag);
        self.inventory_attrs.update(&ad);
        Ok(())
    }

    /// The resources, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &MachineResource> {
        self.list.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&MachineResource> {
        self.list.iter().find(|r| r.name.eq_ignore_ascii_case(name))
    }

    fn get_mut(&mut self, name: &str) -> Option<&mut MachineResource> {
        self.list
            .iter_mut()
            .find(|r| r.name.eq_ignore_ascii_case(name))
    }

    /// Gives one instance of `tag` satisfying `constraint` to slot `slot` (sub-id 0), or to
    /// dynamic slot `sub` of partitionable slot `slot` from the instances `slot` owns
    /// (`AllocateDevId`). Returns the id.
    pub fn allocate(
        &mut self,
        tag: &str,
        constraint: Option<&Expr>,
        slot: u32,
        sub: u32,
    ) -> Option<String> {
        let r = self.get_mut(tag)?;
        let current = if sub > 0 { slot } else { 0 };
        let ix = (0..r.devices.len()).find(|&i| {
            let d = &r.devices[i];
            d.owner == current && d.dyn_owner == 0 && r.matches(i, constraint)
        })?;
        let d = &mut r.devices[ix];
        d.owner = slot;
        d.dyn_owner = sub;
        Some(d.id.clone())
    }

    /// Takes back instance `id` from dynamic slot `sub` of `slot` (it stays with `slot`).
    pub fn release_dynamic(&mut self, tag: &str, id: &str, slot: u32, sub: u32) {
        if let Some(r) = self.get_mut(tag) {
            for d in &mut r.devices {
                if d.id == id && d.owner == slot && d.dyn_owner == sub {
                    d.dyn_owner = 0;
                }
            }
        }
    }

    /// Marks instance `id` as owned by `slot`/`sub` (a slot kept across a reconfiguration).
    /// Returns whether the instance exists and was free or already so owned.
    pub fn adopt(&mut self, tag: &str, id: &str, slot: u32, sub: u32) -> bool {
        let Some(r) = self.get_mut(tag) else {
            return false;
        };
        for d in &mut r.devices {
            if d.id == id {
                let free = d.owner == 0 || (d.owner == slot && (d.dyn_owner == 0 || sub == 0));
                if free {
                    d.owner = slot;
                    if sub > 0 {
                        d.dyn_owner = sub;
                    }
                }
                return free;
            }
        }
        false
    }

    /// Frees instance `id` of `tag` if slot `slot` owns it (the slot is going away).
    pub fn disown(&mut self, tag: &str, id: &str, slot: u32) {
        if let Some(r) = self.get_mut(tag) {
            for d in &mut r.devices {
                if d.id == id && d.owner == slot {
                    d.owner = 0;
                    d.dyn_owner = 0;
                }
            }
        }
    }

    /// The instances of `tag` owned by exactly `slot`/`sub`.
    pub fn owned(&self, tag: &str, slot: u32, sub: u32) -> Vec<&Device> {
        self.get(tag)
            .map(|r| {
                r.devices
                    .iter()
                    .filter(|d| d.owner == slot && d.dyn_owner == sub)
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        assert_eq!(parse_value("4"), (4.0, vec![]));
        assert_eq!(parse_value(" 2 * 3 "), (6.0, vec![]));
        assert_eq!(
            parse_value("CUDA0, CUDA1 CUDA2"),
            (3.0, vec!["CUDA0".into(), "CUDA1".into(), "CUDA2".into()])
        );
        assert_eq!(attr_safe("GPU-1a2b.c"), "GPU_1a2b_c");
        assert_eq!(attr_safe("a--b"), "a_b");
        assert_eq!(
            split_command("/x/y -a 'b c' \"\""),
            ["/x/y", "-a", "b c", ""]
        );
    }

    #[test]
    fn nvidia_smi_listing() {
        let text = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-4f7b2c3e-1111-2222-3333-444455556666)\n  MIG 1g.5gb Device 0: (UUID: MIG-aaaa)\nGPU 1: Tesla T4 (UUID: GPU-0123abcd-0000-0000-0000-000000000000)\n";
        let ad = gpu_inventory_from_nvidia_smi(Some(text));
        assert_eq!(
            ad.eval_attr("DetectedGPUs").as_str(),
            Some("GPU-4f7b2c3e, GPU-0123abcd")
        );
        let p = ad.eval_attr("GPU_4f7b2c3e");
        assert!(matches!(p, Value::Ad(_)));
        let none = gpu_inventory_from_nvidia_smi(None);
        assert_eq!(none.eval_attr("DetectedGPUs").as_int(), Some(0));
    }
}

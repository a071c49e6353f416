//! Resource requests (`request_cpus`, `request_memory` with units, custom `request_<name>`)
//! and the generated `Requirements` expression (`SetRequestResources`,
//! `SetResourceRequirements`, `SetRequirements`).

use std::sync::Arc;

use super::job::{collect_refs, wrap_in_parens_for, Builder, RefKind, PREC_AND, R};
use super::keywords;
use super::util::{self, universe, ShouldTransfer, WhenTransfer};
use crate::classad::parser::parse_old_expr;
use crate::classad::unparse::expr_to_old_string;
use crate::classad::{Expr, Value};

/// The `request_*` commands with their own processing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Special {
    Cpus,
    Gpus,
    Disk,
    Memory,
}

fn special_request(key: &str) -> Option<Special> {
    let eq = |s: &str| key.eq_ignore_ascii_case(s);
    if eq("request_cpus") || eq("request_cpu") {
        Some(Special::Cpus)
    } else if eq("request_gpus") || eq("request_gpu") {
        Some(Special::Gpus)
    } else if eq("request_disk") {
        Some(Special::Disk)
    } else if eq("request_memory") {
        Some(Special::Memory)
    } else {
        None
    }
}

impl Builder<'_> {
    /// `SetRequestResources`.
    pub fn set_request_resources(&mut self) -> R {
        for key in self.table_names() {
            if key.len() < 8 || !key[..8].eq_ignore_ascii_case("request_") {
                continue;
            }
            if let Some(s) = special_request(&key) {
                self.set_request(s, &key)?;
                continue;
            }
            let tag = &key[8..];
            if tag.len() < 2
                || tag.starts_with('_')
                || keywords::DISALLOWED_REQUESTS
                    .iter()
                    .any(|d| d.eq_ignore_ascii_case(&key))
            {
                continue;
            }
            let value = self.param(&key)?.map(|v| v.to_string()).unwrap_or_default();
            let attr = format!("Request{tag}");
            self.assign_expr(&attr, &value)?;
        }
        let has = |b: &Builder<'_>, k: &str| b.raw_param(k).is_some();
        if !has(self, "request_cpus") {
            self.set_request(Special::Cpus, "request_cpus")?;
        }
        if !has(self, "request_gpus") {
            self.set_request(Special::Gpus, "request_gpus")?;
        }
        if !has(self, "request_disk") {
            self.set_request(Special::Disk, "request_disk")?;
        }
        if !has(self, "request_memory") {
            self.set_request(Special::Memory, "request_memory")?;
        }
        Ok(())
    }

    fn set_request(&mut self, which: Special, key: &str) -> R {
        match which {
            Special::Memory => self.set_request_mem(),
            Special::Disk => self.set_request_disk(),
            Special::Cpus => self.set_request_cpus(key),
            Special::Gpus => self.set_request_gpus(key),
        }
    }

    /// A value with units: stored as a number, or else as an expression.
    fn assign_sized(
        &mut self,
        key: &str,
        attr: &str,
        value: &str,
        base: i64,
        unit_name: &str,
    ) -> R {
        match util::parse_int64_bytes(value, base) {
            Some((n, unit)) => {
                if let Some(missing) = self.setup.settings.request_missing_units.clone() {
                    if unit == 0 {
                        if missing.eq_ignore_ascii_case("error") {
                            return Err(self.error(format!("\nERROR: {key}={value} defaults to {unit_name}, but must contain a units suffix (i.e K, M, or B)\n")));
                        }
                        self.warning(format!("\nWARNING: {key}={value} defaults to {unit_name}, but should contain a units suffix (i.e K, M, or B)\n"));
                    }
                }
                self.assign_int(attr, n);
                Ok(())
            }
            None if value.eq_ignore_ascii_case("undefined") => Ok(()),
            None => self.assign_expr(attr, value),
        }
    }

    /// `SetRequestMem`.
    fn set_request_mem(&mut self) -> R {
        let mut mem = self
            .param2("request_memory", Some("RequestMemory"))?
            .map(|v| v.to_string());
        if mem.is_none() && !self.has("RequestMemory") {
            if self.has("JobVMMemory") {
                self.warning(
                    "request_memory was NOT specified.  Using RequestMemory = MY.JobVMMemory\n",
                );
                self.assign_expr("RequestMemory", "MY.JobVMMemory")?;
            } else {
                mem = self.setup.settings.default_request_memory.clone();
            }
        }
        match mem {
            Some(m) => self.assign_sized(
                "request_memory",
                "RequestMemory",
                &m,
                1024 * 1024,
                "megabytes",
            ),
            None => Ok(()),
        }
    }

    /// `SetRequestDisk`.
    fn set_request_disk(&mut self) -> R {
        let mut disk = self
            .param2("request_disk", Some("RequestDisk"))?
            .map(|v| v.to_string());
        if disk.is_none() && !self.has("RequestDisk") {
            disk = self.setup.settings.default_request_disk.clone();
        }
        match disk {
            Some(d) => {
                // HTCondor's message says "kilobytes, must contain" here.
                match util::parse_int64_bytes(&d, 1024) {
                    Some((n, unit)) => {
                        if let Some(missing) = self.setup.settings.request_missing_units.clone() {
                            if unit == 0 {
                                if missing.eq_ignore_ascii_case("error") {
                                    return Err(self.error(format!("\nERROR: request_disk={d} defaults to kilobytes, must contain a units suffix (i.e K, M, or B)\n")));
                                }
                                self.warning(format!("\nWARNING: request_disk={d} defaults to kilobytes, should contain a units suffix (i.e K, M, or B)\n"));
                            }
                        }
                        self.assign_int("RequestDisk", n);
                        Ok(())
                    }
                    None if d.eq_ignore_ascii_case("undefined") => Ok(()),
                    None => self.assign_expr("RequestDisk", &d),
                }
            }
            None => Ok(()),
        }
    }

    /// `SetRequestCpus`.
    fn set_request_cpus(&mut self, key: &str) -> R {
        if key.eq_ignore_ascii_case("request_cpu") || key.eq_ignore_ascii_case("RequestCpu") {
            self.warning(format!(
                "{key} is not a valid submit keyword, did you mean request_cpus?\n"
            ));
            return Ok(());
        }
        let mut cpus = self
            .param2("request_cpus", Some("RequestCpus"))?
            .map(|v| v.to_string());
        if cpus.is_none() && !self.has("RequestCpus") {
            cpus = self.setup.settings.default_request_cpus.clone();
        }
        match cpus {
            Some(c) if c.eq_ignore_ascii_case("undefined") => Ok(()),
            Some(c) => self.assign_expr("RequestCpus", &c),
            None => Ok(()),
        }
    }

    /// `SetRequestGpus`.
    fn set_request_gpus(&mut self, key: &str) -> R {
        if key.eq_ignore_ascii_case("request_gpu") || key.eq_ignore_ascii_case("RequestGpu") {
            self.warning(format!(
                "{key} is not a valid submit keyword, did you mean request_gpus?\n"
            ));
            return Ok(());
        }
        let mut gpus = self
            .param2("request_gpus", Some("RequestGPUs"))?
            .map(|v| v.to_string());
        if gpus.is_none() && !self.has("RequestGPUs") {
            gpus = self.setup.settings.default_request_gpus.clone();
        }
        if let Some(g) = gpus {
            if !g.eq_ignore_ascii_case("undefined") {
                self.assign_expr("RequestGPUs", &g)?;
            }
        }
        if !self.has("RequestGPUs") {
            return Ok(());
        }
        if let Some(r) = self.param2("require_gpus", Some("RequireGPUs"))? {
            self.assign_expr("RequireGPUs", &r)?;
        }
        if let Some(v) = self.param2("gpus_minimum_capability", Some("GPUsMinCapability"))? {
            self.assign_expr("GPUsMinCapability", &v)?;
        }
        if let Some(v) = self.param2("gpus_maximum_capability", Some("GPUsMaxCapability"))? {
            self.assign_expr("GPUsMaxCapability", &v)?;
        }
        match self.param2("gpus_minimum_memory", Some("GPUsMinMemory"))? {
            Some(v) => {
                self.assign_sized(
                    "gpus_minimum_memory",
                    "GPUsMinMemory",
                    &v,
                    1024 * 1024,
                    "megabytes",
                )?;
            }
            None => {
                if self
                    .param2("request_gpu_memory", Some("request_gpus_memory"))?
                    .is_some()
                {
                    self.warning("\nWARNING: request_gpu_memory is not a submit command, did you mean gpus_minimum_memory?");
                }
            }
        }
        if let Some(v) = self.param2("gpus_minimum_runtime", Some("GPUsMinRuntime"))? {
            match parse_version(&v) {
                Some((major, minor)) if (-1..100).contains(&minor) => {
                    let ver = if minor == -1 && major > 1000 {
                        major
                    } else {
                        major * 1000 + if minor > 0 { minor * 10 } else { 0 }
                    };
                    self.assign_int("GPUsMinRuntime", ver);
                }
                _ => self.assign_expr("GPUsMinRuntime", &v)?,
            }
        }
        Ok(())
    }

    /// `SetResourceRequirements`: completes `RequireGPUs` from the GPU property limits.
    pub fn set_resource_requirements(&mut self) -> R {
        if !self.has("RequestGPUs") {
            return Ok(());
        }
        let require = self.lookup_expr("RequireGPUs");
        let mut props: Vec<&str> = Vec::new();
        if let Some(r) = &require {
            const PROPS: [&str; 4] = [
                "Capability",
                "GlobalMemoryMb",
                "DriverVersion",
                "MaxSupportedVersion",
            ];
            collect_refs(r, &mut |name, kind| {
                if kind != RefKind::Target {
                    if let Some(p) = PROPS.iter().find(|p| p.eq_ignore_ascii_case(name)) {
                        if !props.contains(p) {
                            props.push(p);
                        }
                    }
                }
            });
        }
        let mut clauses: Vec<&str> = Vec::new();
        if self.has("GPUsMinCapability") && !props.contains(&"Capability") {
            clauses.push("Capability >= GPUsMinCapability");
        }
        if self.has("GPUsMaxCapability") && !props.contains(&"Capability") {
            clauses.push("Capability <= GPUsMaxCapability");
        }
        if self.has("GPUsMinMemory") && !props.contains(&"GlobalMemoryMb") {
            clauses.push("GlobalMemoryMb >= GPUsMinMemory");
        }
        if self.has("GPUsMinRuntime") && !props.contains(&"MaxSupportedVersion") {
            clauses.push("MaxSupportedVersion >= GPUsMinRuntime");
        }
        if clauses.is_empty() {
            return Ok(());
        }
        let joined = clauses.join(" && ");
        match require {
            Some(r) => {
                let text = expr_to_old_string(&wrap_in_parens_for(r, PREC_AND));
                self.assign_expr("RequireGPUs", &format!("{text} && {joined}"))
            }
            None => self.assign_expr("RequireGPUs", &joined),
        }
    }

    /// `SetRequirements`.
    pub fn set_requirements(&mut self) -> R {
        let orig = self.param("requirements")?;
        let mut answer = match &orig {
            Some(o) => format!("({o})"),
            None => String::new(),
        };
        let forced = match self.param("MY.Requirements")? {
            Some(v) => Some(v),
            None => self.param("+Requirements")?,
        };
        if forced.is_some() {
            if orig.is_some() {
                self.warning("Use of MY.Requirements or +Requirements  overrides requirements. You should remove one of these statements from your submit file.\n");
            }
            return Ok(());
        }
        let u = self.state.universe;
        let append = {
            let st = &self.setup.settings;
            let per_universe = if u == universe::VANILLA {
                st.append_req_vanilla.clone()
            } else {
                None
            };
            per_universe.or_else(|| st.append_requirements.clone())
        };
        if let Some(a) = append {
            if answer.is_empty() {
                answer.push('(');
            } else {
                answer.push_str(" && (");
            }
            answer.push_str(&a);
            answer.push(')');
        }

        // What the user's expression already says about the machine.
        let mut machine_refs: Vec<String> = Vec::new();
        if !answer.is_empty() {
            if let Ok(tree) = parse_old_expr(&answer) {
                collect_refs(&tree, &mut |name, kind| {
                    let internal = kind != RefKind::Target
                        && (name.eq_ignore_ascii_case("RequestMemory")
                            || name.eq_ignore_ascii_case("VM_CkptMac"));
                    if !internal && !machine_refs.iter().any(|m| m.eq_ignore_ascii_case(name)) {
                        machine_refs.push(name.to_owned());
                    }
                });
            }
        }
        let refs = |name: &str| machine_refs.iter().any(|m| m.eq_ignore_ascii_case(name));
        let (is_docker, is_container) = (self.state.is_docker, self.state.is_container);
        let checks_arch = refs("Arch");
        let checks_opsys = is_container
            || is_docker
            || [
                "OpSys",
                "OpSysAndVer",
                "OpSysLongName",
                "OpSysShortName",
                "OpSysName",
                "OpSysLegacy",
            ]
            .iter()
            .any(|n| refs(n));
        let checks_disk = refs("Disk");
        let checks_cpus = refs("Cpus");
        let checks_tdp = refs("HasTDP");
        let checks_encrypt = refs("EncryptExecuteDirectory");
        let might_transfer = util::might_transfer(u);
        let mut checks_fsdomain = might_transfer && refs("FileSystemDomain");
        let checks_file_transfer =
            might_transfer && (refs("HasFileTransfer") || refs("HasJobTransferPlugins"));
        let checks_plugin_methods = might_transfer && refs("HasFileTransferPluginMethods");
        let checks_per_file_encryption = might_transfer && refs("HasPerFileEncryption");
        let checks_hsct = refs("HasSelfCheckpointTransfers");
        let checks_mem = refs("Memory");
        let checks_mpi = u == universe::MPI && refs("HasMPI");
        let arch = self.setup.predefined.arch.clone();
        let opsys = self.setup.predefined.opsys.clone();

        if is_docker || is_container {
            if !checks_arch {
                if !answer.is_empty() {
                    answer.push_str(" && ");
                }
                answer.push_str(&format!("(TARGET.Arch == \"{arch}\")"));
            }
            if !answer.is_empty() {
                answer.push_str(" && ");
            }
            if is_docker {
                answer.push_str("TARGET.HasDocker");
                if let Some(net) = self.lookup_string("DockerNetworkType") {
                    if !net.is_empty() && net != "host" && net != "none" && net != "nat" {
                        answer.push_str(
                            "&& StringListMember(My.DockerNetworkType, TARGET.DockerNetworks)",
                        );
                    }
                }
            } else {
                answer.push_str("TARGET.HasContainer");
                if self.has("DockerImage") {
                    answer.push_str("&& TARGET.HasDockerURL");
                } else if let Some(image) = self.lookup_string("ContainerImage") {
                    match super::job::image_type(&image) {
                        super::job::ImageType::Docker => answer.push_str("&& TARGET.HasDockerURL"),
                        super::job::ImageType::Sif => answer.push_str("&& TARGET.HasSIF"),
                        super::job::ImageType::Sandbox => {
                            answer.push_str("&& TARGET.HasSandboxImage")
                        }
                    }
                }
            }
        } else {
            if !checks_arch {
                if !answer.is_empty() {
                    answer.push_str(" && ");
                }
                answer.push_str(&format!("(TARGET.Arch == \"{arch}\")"));
            }
            if !checks_opsys {
                answer.push_str(&format!(" && (TARGET.OpSys == \"{opsys}\")"));
            }
        }

        if !checks_disk {
            match self.lookup_expr("RequestDisk") {
                Some(e) => {
                    if literal_number(&e).is_none_or(|d| d > 0.0) {
                        answer.push_str(" && (TARGET.Disk >= RequestDisk)");
                    }
                }
                None => answer.push_str(" && (TARGET.Disk >= DiskUsage)"),
            }
        } else {
            if self.has("RequestDisk") {
                answer.push_str(" && (TARGET.Disk >= RequestDisk)");
            }
            if !self.state.warned_disk && self.setup.settings.deprecation_warnings {
                self.warning("Your Requirements expression refers to TARGET.Disk. This is obsolete. Set request_disk and condor_submit will modify the Requirements expression as needed.\n");
                self.state.warned_disk = true;
            }
        }
        if let Some(e) = self.lookup_expr("RequestMemory") {
            if literal_number(&e).is_none_or(|m| m > 1.0) {
                answer.push_str(" && (TARGET.Memory >= RequestMemory)");
            }
        }
        if checks_mem && !self.state.warned_mem && self.setup.settings.deprecation_warnings {
            self.warning("your Requirements expression refers to TARGET.Memory. This is obsolete. Set request_memory and condor_submit will modify the Requirements expression as needed.\n");
            self.state.warned_mem = true;
        }
        if !checks_cpus {
            if let Some(e) = self.lookup_expr("RequestCpus") {
                if literal_number(&e).is_none_or(|c| c > 1.0) {
                    answer.push_str(" && (TARGET.Cpus >= RequestCpus)");
                }
            }
        }

        // Custom resources: Request<tag> attributes, in case-insensitive name order.
        let mut tags: Vec<Arc<str>> = self
            .names_with_prefix("Request")
            .into_iter()
            .filter(|n| n.len() >= 9 && !n[7..].starts_with('_'))
            .filter(|n| {
                !n.eq_ignore_ascii_case("RequestCpus")
                    && !n.eq_ignore_ascii_case("RequestDisk")
                    && !n.eq_ignore_ascii_case("RequestMemory")
            })
            .collect();
        tags.sort_by(|a, b| crate::classad::ad::cmp_ignore_case(a, b));
        tags.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        if !self.setup.settings.custom_resource_requirements {
            tags.retain(|t| t.eq_ignore_ascii_case("RequestGPUs"));
        }
        for attr in tags {
            let tag = &attr[7..];
            if refs(tag) {
                continue;
            }
            let value = self.eval(&attr);
            match &value {
                Value::Int(_) | Value::Real(_) | Value::Undefined => {
                    let n = match value {
                        Value::Int(i) => Some(i as f64),
                        Value::Real(r) => Some(r),
                        _ => None,
                    };
                    if n.is_none_or(|v| v > 0.0) {
                        let require = format!("Require{tag}");
                        if self.has(&require) {
                            answer.push_str(&format!(
                                " && (countMatches(MY.{require},TARGET.Available{tag}) >= {attr})"
                            ));
                            self.state.has_require_res_attr = true;
                        } else {
                            answer.push_str(&format!(" && (TARGET.{tag} >= {attr})"));
                        }
                    }
                }
                Value::Str(s) if !s.is_empty() => {
                    answer.push_str(&format!(" && regexp({attr}, TARGET.{tag})"));
                }
                _ => {}
            }
        }
        if !checks_tdp && self.has("ToolDaemonCmd") {
            answer.push_str(" && TARGET.HasTDP");
        }
        if !checks_encrypt && self.lookup_bool("EncryptExecuteDirectory") == Some(true) {
            answer.push_str(" && TARGET.HasEncryptExecuteDirectory");
        }
        if u == universe::MPI && !checks_mpi {
            answer.push_str(" && TARGET.HasMPI");
        }
        if might_transfer {
            let domain_check = "(TARGET.FileSystemDomain == MY.FileSystemDomain)";
            let crypt_check = if !checks_per_file_encryption
                && (self.has("EncryptInputFiles")
                    || self.has("EncryptOutputFiles")
                    || self.has("DontEncryptInputFiles")
                    || self.has("DontEncryptOutputFiles"))
            {
                " && TARGET.HasPerFileEncryption"
            } else {
                ""
            };
            let should = self
                .lookup_string("ShouldTransferFiles")
                .and_then(|s| ShouldTransfer::parse(&s))
                .unwrap_or(ShouldTransfer::IfNeeded);
            if should == ShouldTransfer::No {
                if !checks_fsdomain {
                    answer.push_str(" && ");
                    answer.push_str(domain_check);
                    checks_fsdomain = true;
                }
            } else if !checks_file_transfer {
                let mut join_op = " && (";
                let mut close_op = ")";
                if should == ShouldTransfer::IfNeeded && !checks_fsdomain {
                    answer.push_str(join_op);
                    answer.push_str(domain_check);
                    join_op = " || (";
                    close_op = "))";
                }
                let plugins = self.lookup_string("TransferPlugins").unwrap_or_default();
                let xfer_check = if plugins.is_empty() {
                    "TARGET.HasFileTransfer"
                } else {
                    "TARGET.HasJobTransferPlugins"
                };
                answer.push_str(join_op);
                answer.push_str(xfer_check);
                answer.push_str(crypt_check);
                let mut version_check = self.lookup_string("TransferCheckpoint").is_some();
                if self.lookup_bool("PreserveRelativePaths") == Some(true) {
                    version_check = true;
                }
                if let Some(w) = self.lookup_string("WhenToTransferOutput") {
                    if WhenTransfer::parse(&w) == Some(WhenTransfer::OnSuccess) {
                        version_check = true;
                    }
                }
                if version_check {
                    answer.push_str(
                        " && versioncmp( split(TARGET.CondorVersion)[1], \"8.9.7\" ) >= 0",
                    );
                }
                // Transfer plugins the job needs but does not bring.
                let mut job_methods: Vec<String> = Vec::new();
                for plug in plugins.split(';') {
                    if let Some((methods, _)) = plug.split_once('=') {
                        for m in crate::config::expand::tokens(
                            methods,
                            crate::config::expand::DEFAULT_DELIMS,
                        ) {
                            job_methods.push(m.to_ascii_lowercase());
                        }
                    }
                }
                let mut methods: Vec<String> = Vec::new();
                let want = |url: &str, methods: &mut Vec<String>| {
                    if util::is_url(url) {
                        let t = util::url_type(url);
                        if !job_methods.iter().any(|m| m.eq_ignore_ascii_case(&t))
                            && !methods.iter().any(|m| m.eq_ignore_ascii_case(&t))
                        {
                            methods.push(t);
                        }
                    }
                };
                if let Some(files) = self.lookup_string("TransferInput") {
                    for f in crate::config::expand::tokens(&files, ",") {
                        want(&f, &mut methods);
                    }
                }
                if let Some(dest) = self.lookup_string("OutputDestination") {
                    want(&dest, &mut methods);
                }
                if let Some(remaps) = self.lookup_string("TransferOutputRemaps") {
                    for remap in remaps.split(';') {
                        if let Some((_, url)) = remap.split_once('=') {
                            want(url.trim(), &mut methods);
                        }
                    }
                }
                methods.sort_by(|a, b| crate::classad::ad::cmp_ignore_case(a, b));
                let mut wanted = String::new();
                for m in &methods {
                    if !wanted.is_empty() {
                        wanted.push(',');
                    }
                    wanted.push_str(m);
                    if checks_plugin_methods {
                        continue;
                    }
                    answer.push_str(&format!(
                        " && stringListIMember(\"{m}\",TARGET.HasFileTransferPluginMethods)"
                    ));
                    if self.setup.settings.sign_s3_urls
                        && (m.eq_ignore_ascii_case("s3") || m.eq_ignore_ascii_case("gs"))
                    {
                        let mut present = true;
                        if !self.has("EC2AccessKeyId") {
                            present = false;
                            self.error("[s3|gs]:// URLs require [s3|aws|gs]_access_key_id_file to be set.\n");
                        }
                        if !self.has("EC2SecretAccessKey") {
                            present = false;
                            self.error("[s3|gs]:// URLS require [s3|aws|gs]_secret_access_key_file to be set.\n");
                        }
                        if !present {
                            return Err(super::job::Abort);
                        }
                    }
                }
                if !wanted.is_empty() {
                    self.assign_str("WantTransferPluginMethods", &wanted);
                }
                answer.push_str(close_op);
            }
            let _ = checks_fsdomain;
        }
        if self.needs_job_deferral().is_some() {
            if u != universe::LOCAL {
                answer.push_str(" && TARGET.HasJobDeferral");
            }
            if !self.has("ScheddInterval") {
                match self.setup.settings.schedd_interval.clone() {
                    Some(i) => self.assign_expr("ScheddInterval", &i)?,
                    None => self.assign_int("ScheddInterval", 300),
                }
            }
            answer.push_str(" && (((time() + ScheddInterval) >= (DeferralTime - DeferralPrepTime)) && (time() < (DeferralTime + DeferralWindow)))");
        }
        if self.lookup_bool("WantFTOnCheckpoint") == Some(true) && !checks_hsct {
            answer.push_str(" && TARGET.HasSelfCheckpointTransfers");
        }
        if let Some(cuda) = self.lookup_string("CUDAVersion") {
            let parsed = parse_cuda_version(&cuda);
            match parsed {
                Some(v) => {
                    self.assign_int("CUDAVersion", v);
                    answer.push_str("&& CUDAVersion <= TARGET.CUDAMaxSupportedVersion");
                }
                None => {
                    return Err(self.error(
                        "cuda_version must be of the form 'x' or 'x.y', where x and y are positive integers.\n",
                    ))
                }
            }
        }
        self.assign_expr("Requirements", &answer)
    }
}

/// `ExprTreeIsLiteralNumber`.
fn literal_number(e: &Expr) -> Option<f64> {
    let mut e = e;
    while let Expr::Paren(inner) = e {
        e = inner;
    }
    match e {
        Expr::Lit(Value::Int(i)) => Some(*i as f64),
        Expr::Lit(Value::Real(r)) => Some(*r),
        Expr::Lit(Value::Bool(b)) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// `StrIsProcId` for `gpus_minimum_runtime`: `X` or `X.Y` (minor -1 when absent).
fn parse_version(s: &str) -> Option<(i64, i64)> {
    let s = s.trim();
    let (major, minor) = match s.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    if major.is_empty() || !major.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let major: i64 = major.parse().ok()?;
    let minor = match minor {
        None | Some("") => -1,
        Some(m) if m.bytes().all(|c| c.is_ascii_digit()) => m.parse().ok()?,
        _ => return None,
    };
    Some((major, minor))
}

/// `cuda_version`: `x` or `x.y` as `x * 1000 + y % 100` (a bare `x < 1000` is `x * 1000`).
fn parse_cuda_version(s: &str) -> Option<i64> {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    match s.split_once('.') {
        Some((a, b)) if digits(a) && digits(b) => {
            Some(a.parse::<i64>().ok()? * 1000 + b.parse::<i64>().ok()? % 100)
        }
        None if digits(s) => {
            let n: i64 = s.parse().ok()?;
            Some(if n < 1000 { n * 1000 } else { n })
        }
        _ => None,
    }
}

//! The DAG language against HTCondor 24.0's parse.cpp: structure, order, and the exact words
//! of its errors.

use super::*;

/// Writes `files` into a new directory and parses the first as the DAG.
fn parse_files(
    files: &[(&str, &str)],
) -> (
    tempfile::TempDir,
    std::result::Result<Dag, ParseError>,
    Vec<String>,
) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut parser = Parser::new(ParseOptions::new(dir.path()));
    let result = parser.parse_dag_file(files[0].0);
    let log = parser.log.iter().map(|(_, l)| l.clone()).collect();
    let result = result.map(|()| parser.finish());
    (dir, result, log)
}

fn parse(text: &str) -> Dag {
    let (_d, r, _) = parse_files(&[("x.dag", text)]);
    r.unwrap_or_else(|e| panic!("{:?}", e.lines))
}

fn error(text: &str) -> Vec<String> {
    let (_d, r, _) = parse_files(&[("x.dag", text)]);
    r.expect_err("the parse must fail").lines
}

fn names(dag: &Dag, ids: &[NodeId]) -> Vec<String> {
    ids.iter().map(|&i| dag.nodes[i].name.clone()).collect()
}

#[test]
fn diamond_in_two_passes() {
    let dag = parse(
        "# a diamond\nPARENT A CHILD B C\nJOB A a.sub\nJob B b.sub\njob C c.sub DIR . NOOP\n\
         JOB D \"d file.sub\" DONE\nParent B C Child D\n",
    );
    let a = dag.find("A").unwrap();
    let d = dag.find("D").unwrap();
    assert_eq!(names(&dag, &dag.nodes[a].children), ["B", "C"]);
    // Two parents and one child: no join node.
    assert_eq!(names(&dag, &dag.nodes[d].parents), ["B", "C"]);
    assert_eq!(dag.nodes[d].submit, "d file.sub");
    assert!(dag.nodes[d].pre_done);
    let c = &dag.nodes[dag.find("C").unwrap()];
    assert!(c.noop);
    assert_eq!(c.dir, ".");
    assert_eq!(dag.num_nodes(true), 4);
    assert!(dag.find("a").is_none(), "node names are case-sensitive");
}

#[test]
fn many_to_many_goes_through_a_join_node() {
    let dag = parse("JOB A a\nJOB B b\nJOB C c\nJOB D d\nPARENT A B CHILD C D\n");
    let join = dag.find("_condor_join_node1").unwrap();
    assert!(dag.nodes[join].noop);
    assert_eq!(dag.nodes[join].submit, "noop.sub");
    assert_eq!(names(&dag, &dag.nodes[join].parents), ["A", "B"]);
    assert_eq!(names(&dag, &dag.nodes[join].children), ["C", "D"]);
    assert_eq!(dag.num_nodes(true), 5, "join nodes count in the totals");
    assert_eq!(dag.num_edges(), 4);
}

#[test]
fn inline_descriptions() {
    let dag = parse(
        "SUBMIT-DESCRIPTION Shared {\n  executable = /bin/true\n}\nJOB A {\n  executable = /bin/echo\n  arguments = hi\n}\nJOB B Shared\n",
    );
    let a = &dag.nodes[dag.find("A").unwrap()];
    assert_eq!(
        a.description,
        Description::Inline("executable = /bin/echo\narguments = hi\n".into())
    );
    let b = &dag.nodes[dag.find("B").unwrap()];
    assert_eq!(
        b.description,
        Description::Inline("executable = /bin/true\n".into())
    );
    let lines = error("JOB A {\nexecutable = x\n");
    assert_eq!(
        lines,
        ["Error: no closing brace in JOB A submit description (starting on line 1)"]
    );
    let lines = error("JOB A {\nexecutable = x\nqueue 2\n}\n");
    assert!(lines[0].contains("(line 3)"), "{lines:?}");
}

#[test]
fn vars_prepend_append_and_escapes() {
    let dag = parse(
        "JOB A a\nVARS A x=\"1\" y = \"two words\" +Attr=\"\\\"q\\\" \\\\\"\nVARS A APPEND z=\"3\"\nVARS A PREPEND w=\"4\"\n",
    );
    let vars = &dag.nodes[0].vars;
    let got: Vec<(&str, &str, bool)> = vars
        .iter()
        .map(|v| (v.name.as_str(), v.value.as_str(), v.prepend))
        .collect();
    assert_eq!(
        got,
        [
            ("x", "1", true),
            ("y", "two words", true),
            ("My.Attr", "\"q\" \\", true),
            ("z", "3", false),
            ("w", "4", true)
        ]
    );
    assert_eq!(
        error("JOB A a\nVARS A x=1\n"),
        ["ERROR: x.dag (line 2): x's value must be quoted"]
    );
    assert_eq!(
        error("JOB A a\nVARS A x=\"1\" APPEND y=\"2\"\n"),
        ["ERROR: x.dag (line 2): APPEND not declared before all passed variables."]
    );
    assert_eq!(
        error("JOB A a\nVARS A queue_x=\"1\"\n"),
        ["ERROR: Illegal variable name: queue_x; variable names cannot begin with \"queue\""]
    );
    assert_eq!(
        error("JOB A a\nVARS A\n"),
        ["ERROR: x.dag (line 2): No valid name-value pairs"]
    );
    assert_eq!(
        error("JOB A a\nVARS A x=\"1\\n\"\n"),
        ["ERROR: x.dag (line 2): Unknown escape sequence \"\\n\""]
    );
    assert_eq!(
        error("JOB A a\nVARS B x=\"1\"\n"),
        ["x.dag (line 2): Unknown Node B"]
    );
}

#[test]
fn scripts_retry_abort_priority_category() {
    let dag = parse(
        "JOB A a\nFINAL F f\nSCRIPT DEFER 4 20 DEBUG dbg ALL PRE A pre.sh $JOB  $RETRY\n\
         SCRIPT POST ALL_NODES post.sh $RETURN\nRETRY A 3 UNLESS-EXIT 42\nABORT-DAG-ON A 5 RETURN 0\n\
         PRIORITY A 7\nCATEGORY A heavy\nMAXJOBS heavy 2\nPRE_SKIP A 9\n",
    );
    let a = &dag.nodes[dag.find("A").unwrap()];
    let pre = a.pre.as_ref().unwrap();
    assert_eq!(pre.cmd, "pre.sh $JOB  $RETRY");
    assert_eq!(pre.defer, Some((4, 20)));
    assert_eq!(pre.debug, Some(("dbg".into(), DebugStreams::All)));
    assert_eq!(a.post.as_ref().unwrap().cmd, "post.sh $RETURN");
    assert!(
        dag.nodes[dag.find("F").unwrap()].post.is_none(),
        "ALL_NODES skips FINAL"
    );
    assert_eq!((a.retry_max, a.retry_unless_exit), (3, Some(42)));
    assert_eq!(
        a.abort_dag_on,
        Some(AbortDagOn {
            value: 5,
            ret: Some(0)
        })
    );
    assert_eq!(
        (a.priority, a.category.as_deref(), a.pre_skip),
        (7, Some("heavy"), Some(9))
    );
    assert_eq!(dag.categories.get("heavy"), Some(&Some(2)));

    assert_eq!(
        error("FINAL F f\nRETRY F 2\n"),
        ["ERROR: x.dag (line 2): Final Node F cannot have RETRY specification"]
    );
    assert_eq!(
        error("JOB A a\nRETRY A -1\n"),
        [
            "ERROR: x.dag (line 2): Invalid Retry value \"-1\" (cannot be negative)",
            "Example syntax is: Retry NodeName 3 [UNLESS-EXIT 42]"
        ]
    );
    assert_eq!(
        error("JOB A a\nRETRY A 1 UNLESS 2\n")[0],
        "ERROR: x.dag (line 2) Invalid retry option: UNLESS"
    );
    assert_eq!(
        error("JOB A a\nSCRIPT PRE A\n")[0],
        "ERROR: x.dag (line 2): You named a PRE script for node A but didn't provide a script filename"
    );
    assert_eq!(
        error("JOB A a\nABORT-DAG-ON A 1 RETURN 256\n"),
        ["ERROR: x.dag (line 2) Bad return value for ABORT_ON (must be between 0 and 255): 256"]
    );
}

#[test]
fn errors_name_the_file_and_line() {
    assert_eq!(
        error("JOB A a\nFOO bar\n"),
        ["x.dag (line 2): ERROR: expected JOB, DATA, SUBDAG, FINAL, SCRIPT, PARENT, RETRY, ABORT-DAG-ON, DOT, VARS, PRIORITY, CATEGORY, MAXJOBS, CONFIG, SET_JOB_ATTR, SPLICE, PROVISIONER, SERVICE, NODE_STATUS_FILE, REJECT, JOBSTATE_LOG, PRE_SKIP, DONE, CONNECT, PIN_IN, PIN_OUT, INCLUDE, SAVE_POINT_FILE orSUBMIT-DESCRIPTION token (found FOO)"]
    );
    assert_eq!(
        error("JOB A a\nJOB A b\n"),
        [
            "ERROR: x.dag (line 2): node name 'A' already exists in DAG",
            "Example syntax is: JOB <nodename> submitfile [DIR directory] [NOOP] [DONE]"
        ]
    );
    assert_eq!(
        error("JOB A a\nPARENT A CHILD Z\n"),
        ["ERROR: x.dag (line 2): Unknown Node Z"]
    );
    assert_eq!(
        error("JOB parent a\n"),
        [
            "ERROR: token (parent) is a reserved word",
            "ERROR: x.dag (line 1): NodeName cannot be a reserved word",
            "Example syntax is: JOB <nodename> submitfile [DIR directory] [NOOP] [DONE]"
        ]
    );
    let (_d, r, _) = parse_files(&[("x.dag", "JOB a+b x\n")]);
    let e = r.unwrap_err();
    assert!(e.immediate);
    assert_eq!(
        e.lines,
        ["ERROR: x.dag (line 1): NodeName a+b contains one or more illegal characters ('+')"]
    );
    assert_eq!(
        error("JOB A a.dag.condor.sub\n"),
        ["Error: The use of the JOB keyword for nested DAGs is prohibited."]
    );
    assert_eq!(
        error("JOB A a\nJOB B b DIR nowhere\n"),
        ["ERROR: can't change to directory nowhere: No such file or directory"]
    );
    assert_eq!(
        error("JOB A a\nFINAL F f\nPARENT F CHILD A\n"),
        ["ERROR: x.dag (line 3) failed to add dependencies between parent node \"F\" and child nodes : Tried to add a child to a Final node"]
    );
    assert_eq!(
        error("JOB A a\nDONE B\n"),
        [
            "Warning: x.dag (line 2): Unknown Node B",
            "ERROR: Warning is fatal error because of DAGMAN_USE_STRICT setting"
        ]
    );
}

#[test]
fn cycles_name_a_parent_line() {
    let (_d, r, _) = parse_files(&[(
        "x.dag",
        "JOB A a\nJOB B b\nJOB C c\nPARENT A CHILD B\nPARENT B CHILD C\nPARENT C CHILD A\n",
    )]);
    assert!(r.is_ok(), "a cycle parses; it is found afterwards");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("x.dag"),
        "JOB A a\nJOB B b\nJOB C c\nPARENT A CHILD B\nPARENT B CHILD C\nPARENT C CHILD A\n",
    )
    .unwrap();
    let mut p = Parser::new(ParseOptions::new(dir.path()));
    p.parse_dag_file("x.dag").unwrap();
    let e = p.check_cycles().unwrap_err();
    assert_eq!(
        e.lines,
        ["ERROR: x.dag (line 6): a cycle exists in the dag: A -> B -> C -> A"]
    );
}

#[test]
fn splices_are_named_scoped_and_lifted_behind_the_dags_own_nodes() {
    let (_d, r, _) = parse_files(&[
        (
            "top.dag",
            "JOB X x\nSPLICE S inner.dag DIR sub\nJOB Y y\nPARENT X CHILD S\nPARENT S CHILD Y\n",
        ),
        (
            "sub/inner.dag",
            "JOB A a.sub\nJOB B b.sub DIR deep\nPARENT A CHILD B\nCATEGORY A cat\nCATEGORY B +global\nMAXJOBS cat 1\n",
        ),
        ("sub/deep/.keep", ""),
    ]);
    let dag = r.unwrap();
    let order: Vec<&str> = dag.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(order, ["X", "Y", "S+A", "S+B"]);
    let a = dag.find("S+A").unwrap();
    let b = dag.find("S+B").unwrap();
    assert_eq!(names(&dag, &dag.nodes[a].parents), ["X"]);
    assert_eq!(names(&dag, &dag.nodes[b].children), ["Y"]);
    assert_eq!(dag.nodes[a].dir, "sub/");
    assert_eq!(dag.nodes[b].dir, "sub/deep");
    assert_eq!(dag.nodes[a].category.as_deref(), Some("S+cat"));
    assert_eq!(dag.nodes[b].category.as_deref(), Some("+global"));
    assert_eq!(dag.categories.get("S+cat"), Some(&Some(1)));
}

#[test]
fn include_and_recursion() {
    let (_d, r, _) = parse_files(&[
        ("x.dag", "JOB A a\nINCLUDE more.dag\n"),
        ("more.dag", "JOB B b\nPARENT A CHILD B\n"),
    ]);
    let dag = r.unwrap();
    assert_eq!(names(&dag, &dag.nodes[0].children), ["B"]);
    let (_d, r, _) = parse_files(&[("x.dag", "JOB A a\nINCLUDE x.dag\n")]);
    assert!(r.unwrap_err().lines[0].contains("recursive INCLUDE"));
}

#[test]
fn several_dag_files_munge_names_and_rescue_files_do_not() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("one.dag"), "JOB A a\nRETRY A 2\n").unwrap();
    std::fs::write(
        dir.path().join("two.dag"),
        "JOB A a\nJOB B b\nPARENT A CHILD B\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("r.rescue001"), "DONE 0.A\nDONE 1.A\n").unwrap();
    let mut opts = ParseOptions::new(dir.path());
    opts.munge = true;
    let mut p = Parser::new(opts);
    p.parse_dag_file("one.dag").unwrap();
    p.parse_dag_file("two.dag").unwrap();
    p.parse_rescue("r.rescue001").unwrap();
    let dag = p.finish();
    let order: Vec<&str> = dag.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(order, ["0.A", "1.A", "1.B"]);
    assert_eq!(dag.nodes[0].retry_max, 2);
    assert!(dag.nodes[0].done_line && dag.nodes[1].done_line && !dag.nodes[2].done_line);
}

#[test]
fn files_and_reject() {
    let dag = parse(
        "JOB A a\nDOT dag.dot UPDATE DONT-OVERWRITE INCLUDE hdr\nNODE_STATUS_FILE st 30 ALWAYS-UPDATE\n\
         JOBSTATE_LOG js.log\nSAVE_POINT_FILE A\nREJECT\n",
    );
    assert_eq!(
        dag.dot,
        Some(DotSpec {
            file: "dag.dot".into(),
            update: true,
            overwrite: false,
            include: Some("hdr".into())
        })
    );
    assert_eq!(
        dag.node_status
            .as_ref()
            .map(|s| (s.min_update, s.always_update)),
        Some((30, true))
    );
    assert_eq!(dag.jobstate_log.as_deref(), Some("js.log"));
    assert_eq!(dag.nodes[0].save_file.as_deref(), Some("A-x.dag.save"));
    assert_eq!(dag.reject.as_deref(), Some("x.dag (line 6)"));
}

#[test]
fn subdag_and_service_nodes() {
    let dag = parse("SUBDAG EXTERNAL S inner.dag\nSERVICE W w.sub\nJOB A a\nSCRIPT PRE W pre.sh\n");
    let s = &dag.nodes[dag.find("S").unwrap()];
    assert_eq!(s.submit, "inner.dag.condor.sub");
    assert_eq!(s.dag_file.as_deref(), Some("inner.dag"));
    assert_eq!(dag.services.len(), 1);
    assert_eq!(dag.num_nodes(true), 2, "SERVICE nodes are not counted");
    assert!(dag.nodes[dag.find("W").unwrap()].pre.is_some());
    assert_eq!(
        error("SUBDAG A a.dag\n"),
        ["ERROR: x.dag (line 1): only SUBDAG EXTERNAL is supported at this time"]
    );
}

#[test]
fn continuation_lines_and_quoted_submit_names() {
    let dag = parse("JOB A \\\n  a.sub\nPARENT A \\\n CHILD B\nJOB B \"b.sub\" NOOP\n");
    assert_eq!(dag.nodes[1].submit, "b.sub");
    assert_eq!(names(&dag, &dag.nodes[0].children), ["B"]);
}

//! `classad_eval` end to end: the cases of HTCondor's own test
//! (src/condor_tests/test_classad_eval.py), plus errors and file forms.

use crate::common::TestEnvironment;

fn run(env: &TestEnvironment, args: &[&str]) -> String {
    let files = |a: &&str| match *a {
        "{my}" => env.work_dir().join("my.ad").display().to_string(),
        "{target}" => env.work_dir().join("target.ad").display().to_string(),
        other => other.to_string(),
    };
    let args: Vec<String> = args.iter().map(files).collect();
    env.run("classad_eval", &args).to_string()
}

fn env_with_files() -> TestEnvironment {
    let env = TestEnvironment::new();
    env.write_file("my.ad", "[ x = 7; z = 10; ]\n");
    env.write_file("target.ad", "[ x = 8; y = 9; ]\n");
    env
}

#[test]
fn htcondor_test_cases() {
    let env = env_with_files();
    let cases: &[(&[&str], &str)] = &[
        (&["1"], "[  ]\n1\n"),
        (&["1 + 1"], "[  ]\n2\n"),
        (&["x = 7", "x"], "[ x = 7 ]\n7\n"),
        (&["x = y", "x"], "[ x = y ]\nundefined\n"),
        (&["x = y", "y = 7", "x"], "[ x = y; y = 7 ]\n7\n"),
        (&["[ x = y; y = 7; ]", "x"], "[ x = y; y = 7 ]\n7\n"),
        (&["-quiet", "x = y", "y = 7", "x"], "7\n"),
        (
            &["x = y", "x", "y = 7", "x"],
            "[ x = y ]\nundefined\n[ x = y; y = 7 ]\n7\n",
        ),
        (
            &["x = y", "x", "-quiet", "y = 7", "x"],
            "[ x = y ]\nundefined\n7\n",
        ),
        (&["-quiet", "-file", "{my}", "x"], "7\n"),
        (&["-quiet", "-my-file", "{my}", "x"], "7\n"),
        (&["-quiet", "-file", "{my}", "MY.x"], "7\n"),
        (&["-quiet", "-my-file", "{my}", "TARGET.x"], "undefined\n"),
        (&["-quiet", "-target-file", "{target}", "x"], "8\n"),
        (
            &["-quiet", "-target-file", "{target}", "MY.x"],
            "undefined\n",
        ),
        (&["-quiet", "-target-file", "{target}", "TARGET.x"], "8\n"),
        (
            &[
                "-quiet",
                "-my-file",
                "{my}",
                "-target-file",
                "{target}",
                "x",
            ],
            "7\n",
        ),
        (
            &[
                "-quiet",
                "-my-file",
                "{my}",
                "-target-file",
                "{target}",
                "MY.x",
            ],
            "7\n",
        ),
        (
            &[
                "-quiet",
                "-my-file",
                "{my}",
                "-target-file",
                "{target}",
                "TARGET.x",
            ],
            "8\n",
        ),
        (
            &[
                "-quiet",
                "-my-file",
                "{my}",
                "-target-file",
                "{target}",
                "y",
            ],
            "9\n",
        ),
        (
            &[
                "-quiet",
                "-my-file",
                "{my}",
                "-target-file",
                "{target}",
                "z",
            ],
            "10\n",
        ),
    ];
    for (args, want) in cases {
        assert_eq!(
            run(&env, args),
            format!("{want}[exit status: 0]"),
            "classad_eval {args:?}"
        );
    }
}

#[test]
fn results_print_in_new_syntax() {
    let env = TestEnvironment::new();
    assert_eq!(
        run(
            &env,
            &[
                "-quiet",
                "{ 1 + 1, \"a\" }",
                "1.5",
                "\"tab\\there\"",
                "[ a = 1; b = a + 1 ].b",
                "1 / 0"
            ]
        ),
        "{ 1 + 1,\"a\" }\n1.500000000000000E+00\n\"tab\\there\"\n2\nerror\n[exit status: 0]"
    );
}

#[test]
fn old_syntax_and_json_files_are_context_ads() {
    let env = TestEnvironment::new();
    env.write_file("old.ad", "Cpus = 4\nMemory = 2048\nName = \"slot1@host\"\n");
    env.write_file("job.json", "[\n{\n  \"RequestMemory\": 1024,\n  \"Requirements\": \"\\/Expr(TARGET.Memory >= RequestMemory)\\/\"\n}\n]\n");
    let old = env.work_dir().join("old.ad").display().to_string();
    let json = env.work_dir().join("job.json").display().to_string();
    assert_eq!(
        run(
            &env,
            &[
                "-quiet",
                "-file",
                &json,
                "-target-file",
                &old,
                "Requirements",
                "TARGET.Name"
            ]
        ),
        "true\n\"slot1@host\"\n[exit status: 0]"
    );
}

#[test]
fn a_bad_expression_is_reported() {
    let env = TestEnvironment::new();
    let out = run(&env, &["-quiet", "1 +"]);
    assert!(out.starts_with("------- stderr -------\nclassad_eval: Unable to turn '1 +' into a ClassAd or an expression"), "{out}");
    assert!(out.contains("at line 1, column 4"), "{out}");
    assert!(out.ends_with("[exit status: 1]"), "{out}");
}

#[test]
fn an_unreadable_file_is_reported() {
    let env = TestEnvironment::new();
    env.write_file("bad.ad", "this is not an ad\n");
    let bad = env.work_dir().join("bad.ad").display().to_string();
    let out = run(&env, &["-file", &bad, "x"]);
    assert_eq!(
        out,
        format!("------- stderr -------\nclassad_eval: Unable to turn file '{bad}' into a ClassAd.\n[exit status: 1]")
    );
}

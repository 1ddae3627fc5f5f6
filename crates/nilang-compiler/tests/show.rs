//! The look inside (`nilang_compiler::show`): the printed IR, inverse and gradient program of
//! small functions, against the expected text.
use nilang_compiler::show::show;

#[test]
fn the_inverse_of_a_small_function_is_printed_in_the_language() {
    let shown = show(quote::quote!(
        fn f(y: &mut f64, x: &mut [f64], t: &mut f64) {
            routine! {
                t += x[0] * x[1];
            }
            y += sin(t);
            unroutine!();
            for i in 0..x.len() {
                x[i] += 1.0;
            }
        }
    ))
    .unwrap();
    assert_eq!(
        shown.inverse,
        "fn f_inv(y: &mut f64, x: &mut [f64], t: &mut f64) {
    for i in (0..x.len()).rev() {
        x[i] -= 1.0;
    }
    // routine
    t += x[0] * x[1];
    y -= sin(t);
    // unroutine: the routine inverted
    t -= x[0] * x[1];
}
"
    );
    assert_eq!(
        shown.ir,
        "fn f(y: &mut f64, x: &mut [f64], t: &mut f64) {
    // routine
    t += x[0] * x[1];
    y += sin(t);
    // unroutine: the routine inverted
    t -= x[0] * x[1];
    for i in 0..x.len() {
        x[i] += 1.0;
    }
}
"
    );
    assert!(
        shown.gradient.contains(
            "    t -= x[0] * x[1];\n    //   x[0].g += x[1] * t.g; x[1].g += x[0] * t.g\n"
        ),
        "{}",
        shown.gradient
    );
}

#[test]
fn errors_come_back_as_syn_errors() {
    let e = show(quote::quote!(
        fn f(y: &mut f64) {
            y = 1.0;
        }
    ))
    .unwrap_err();
    assert!(!e.to_string().is_empty());
}

// ---- the picture (`nilang_compiler::show::picture`) ----------------------------------------

use nilang_compiler::show::picture::{functions_in, picture};
use quote::ToTokens;

/// A strict check of the SVG's XML: every tag closed in order, attributes quoted, no bare `<`
/// or `&` in text; returns the element names in document order.
fn well_formed(svg: &str) -> Result<Vec<String>, String> {
    let (mut open, mut names) = (Vec::<String>::new(), Vec::new());
    let mut rest = svg;
    while let Some(lt) = rest.find('<') {
        let text = &rest[..lt];
        if let Some(amp) = text.find('&') {
            let entity = &text[amp..];
            if !["&amp;", "&lt;", "&gt;", "&quot;"]
                .iter()
                .any(|e| entity.starts_with(e))
            {
                return Err(format!("bare & in {text:?}"));
            }
        }
        let gt = rest[lt..].find('>').ok_or("unclosed tag")? + lt;
        let tag = &rest[lt + 1..gt];
        if tag.contains('<') {
            return Err(format!("< inside tag {tag:?}"));
        }
        if let Some(name) = tag.strip_prefix('/') {
            match open.pop() {
                Some(o) if o == name => {}
                o => return Err(format!("</{name}> closes {o:?}")),
            }
        } else {
            let self_closing = tag.ends_with('/');
            let body = tag.trim_end_matches('/');
            let name = body
                .split_whitespace()
                .next()
                .ok_or("empty tag")?
                .to_string();
            // attributes: name="value" pairs
            let mut attrs = body[name.len()..].trim();
            while !attrs.is_empty() {
                let eq = attrs
                    .find("=\"")
                    .ok_or(format!("unquoted attribute in {tag:?}"))?;
                let close = attrs[eq + 2..].find('"').ok_or("unclosed quote")? + eq + 2;
                attrs = attrs[close + 1..].trim_start();
            }
            names.push(name.clone());
            if !self_closing {
                open.push(name);
            }
        }
        rest = &rest[gt + 1..];
    }
    match (open.is_empty(), rest.trim().is_empty(), names.first()) {
        (true, true, Some(root)) if root == "svg" => Ok(names),
        _ => Err(format!("unclosed {open:?} or text after the root")),
    }
}

/// The IR lines that are instructions or calls (`y += ..;`, `f(..);`, `inv! { f(..); }`).
fn instruction_lines(ir: &str) -> Vec<String> {
    ir.lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| {
            (l.ends_with(';') || l.starts_with("inv! {"))
                && ![
                    "let ",
                    "dealloc!",
                    "fresh!",
                    "push!",
                    "pop!",
                    "copy_push!",
                    "copy_pop!",
                ]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .map(|l| l.trim_end_matches(';').to_string())
        .collect()
}

/// The gates' statements (their `<title>`s), in order.
fn gate_titles(svg: &str) -> Vec<String> {
    svg.split("<g class=\"gate\"><title>")
        .skip(1)
        .map(|s| {
            s[..s.find("</title>").unwrap()]
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&amp;", "&")
        })
        .collect()
}

#[test]
fn the_picture_has_a_wire_per_variable_and_a_gate_per_instruction() {
    let f = quote::quote!(
        fn f(y: &mut f64, x: &mut [f64], n: usize) {
            let t = 0.0;
            routine! {
                for i in 0..n {
                    t += x[i] * x[i];
                }
            }
            y += sqrt(t);
            unroutine!();
            dealloc!(t = 0.0);
            g(y, &mut x[0]);
            inv! { g(y, &mut x[1]); }
        }
    );
    let svg = picture(f.clone()).unwrap();
    let elements = well_formed(&svg).unwrap();
    // y, x, n and the ancilla t
    assert_eq!(svg.matches("<g class=\"wire\">").count(), 4);
    assert!(svg.contains("<title>t (allocated in the body)</title>"));
    // t += x[i] * x[i] (in the routine), y += sqrt(t), t -= x[i] * x[i] (the routine
    // uncomputed), two calls
    let titles = gate_titles(&svg);
    assert_eq!(
        titles,
        [
            "t += x[i] * x[i]",
            "y += sqrt(t)",
            "t -= x[i] * x[i]",
            "g(y, &mut x[0])",
            "inv! { g(y, &mut x[1]); }"
        ]
    );
    assert_eq!(
        titles,
        instruction_lines(&nilang_compiler::show::show(f).unwrap().ir)
    );
    // the frames: the routine, its loop, the uncomputation and its reversed loop
    for label in [
        ">routine<",
        ">uncompute<",
        ">for i in 0..n<",
        ">for i in 0..n reversed<",
    ] {
        assert!(svg.contains(label), "{label} in {svg}");
    }
    assert_eq!(svg.matches("<g class=\"frame\">").count(), 4);
    assert_eq!(svg.matches("<g class=\"alloc\">").count(), 1);
    assert_eq!(svg.matches("<g class=\"dealloc\">").count(), 1);
    // the gates: a box each, a dot per read operand (x[i] twice in each loop, t once), the
    // indices written next to their wire

    assert_eq!(elements.iter().filter(|e| *e == "circle").count(), 5);
    assert!(svg.contains(">[i], [i]</text>") && svg.contains(">[1]</text>"));
    assert!(svg.contains(">g⁻¹</text>"));
}

#[test]
fn every_example_of_the_guide_is_drawn_and_its_linked_pictures_are_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let guide = std::fs::read_to_string(root.join("docs/guide.md")).unwrap();
    let fs = functions_in(&guide).unwrap();
    assert!(fs.len() >= 8, "{} `#[i]` examples in the guide", fs.len());
    let mut drawn = std::collections::HashMap::new();
    for f in fs {
        let name = f.sig.ident.to_string();
        let tokens = f.into_token_stream();
        let svg = picture(tokens.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        well_formed(&svg).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ir = nilang_compiler::show::show(tokens).unwrap().ir;
        assert_eq!(gate_titles(&svg), instruction_lines(&ir), "{name}");
        drawn.entry(name).or_insert(svg);
    }
    // every example has its picture committed, as drawn now (the first of equal names: a
    // later one is `NAME-2.svg`)
    for (name, svg) in &drawn {
        let committed = std::fs::read_to_string(root.join(format!("docs/pictures/{name}.svg")))
            .unwrap_or_else(|e| {
                panic!(
                    "docs/pictures/{name}.svg: {e}: cargo run -p nilang-compiler --example \
                     picture -- docs/guide.md docs/pictures"
                )
            });
        assert_eq!(svg, &committed, "docs/pictures/{name}.svg is stale");
    }
    // the pictures the guide shows are those of its examples, as drawn now
    // (inline links `](pictures/NAME.svg)` or reference definitions `]: pictures/NAME.svg`)
    let linked: Vec<&str> = ["](pictures/", "]: pictures/"]
        .iter()
        .flat_map(|link| guide.split(link).skip(1))
        .map(|s| &s[..s.find(".svg").unwrap()])
        .collect();
    assert!(linked.contains(&"norm"), "the guide shows norm's picture");
    for name in linked {
        let committed = std::fs::read_to_string(root.join(format!("docs/pictures/{name}.svg")))
            .unwrap_or_else(|e| panic!("docs/pictures/{name}.svg: {e}"));
        match drawn.get(name) {
            Some(svg) => assert_eq!(
                svg, &committed,
                "docs/pictures/{name}.svg is stale: cargo run -p nilang-compiler --example \
                 picture -- docs/guide.md docs/pictures"
            ),
            // an application's picture (its command is next to it in the guide)
            None => {
                well_formed(&committed).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
    }
}

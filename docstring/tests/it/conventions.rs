//! One case or more per convention, written from the convention's own documentation; the
//! expected parts are read off the documentation's definition of each tag or section.

use codemine_docstring::{parse, parse_as, Language, Other, Param, Raise, Returns, Style};

fn p(name: &str, ty: Option<&str>, desc: &str) -> Param {
    Param {
        name: name.to_string(),
        type_name: ty.map(str::to_string),
        description: desc.to_string(),
    }
}

fn ret(ty: Option<&str>, desc: &str) -> Option<Returns> {
    Some(Returns {
        type_name: ty.map(str::to_string),
        description: desc.to_string(),
    })
}

fn e(ty: Option<&str>, desc: &str) -> Raise {
    Raise {
        type_name: ty.map(str::to_string),
        description: desc.to_string(),
    }
}

fn sections(others: &[Other]) -> Vec<&str> {
    others.iter().map(|o| o.section.as_str()).collect()
}

/// Sphinx's "Info field lists" example (sphinx-doc.org, domains/python).
#[test]
fn rest_sphinx_info_fields() {
    let d = parse(
        "Send a message to a recipient.\n\n\
         :param str sender: The person sending the message\n\
         :param str recipient: The recipient of the message\n\
         :param str message_body: The body of the message\n\
         :param priority: The priority of the message, can be a number 1-5\n\
         :type priority: integer or None\n\
         :return: the message id\n\
         :rtype: int\n\
         :raises ValueError: if the message_body exceeds 160 characters\n\
         :raises TypeError: if the message_body is not a basestring",
        Language::Python,
    );
    assert_eq!(d.style, Style::Rest);
    assert_eq!(
        d.params,
        [
            p("sender", Some("str"), "The person sending the message"),
            p("recipient", Some("str"), "The recipient of the message"),
            p("message_body", Some("str"), "The body of the message"),
            p(
                "priority",
                Some("integer or None"),
                "The priority of the message, can be a number 1-5"
            ),
        ]
    );
    assert_eq!(d.returns, ret(Some("int"), "the message id"));
    assert_eq!(
        d.raises,
        [
            e(
                Some("ValueError"),
                "if the message_body exceeds 160 characters"
            ),
            e(Some("TypeError"), "if the message_body is not a basestring"),
        ]
    );
}

/// reST fields as codemine's extraction holds a docstring: indented continuation lines,
/// a `:rtype:` alone, other fields.
#[test]
fn rest_continuations_and_other_fields() {
    let d = parse(
        "Fetches rows.\n\n    :param table: The table\n        to read.\n    :rtype: list\n    :versionadded: 2.1",
        Language::Python,
    );
    assert_eq!(d.params, [p("table", None, "The table\nto read.")]);
    // Only a type: the return has no description.
    assert_eq!(d.returns, ret(Some("list"), ""));
    assert_eq!(sections(&d.others), ["versionadded"]);
    assert_eq!(d.others[0].text, "2.1");
}

/// Napoleon's Google style example (sphinx.ext.napoleon, example_google.py).
#[test]
fn google_napoleon() {
    let d = parse(
        "Example function with types documented in the docstring.\n\n    \
         `PEP 484`_ type annotations are supported.\n\n    \
         Args:\n        param1 (int): The first parameter.\n        \
         param2 (str, optional): The second parameter. Defaults to None.\n            \
         Second line of description should be indented.\n        \
         *args: Variable length argument list.\n\n    \
         Returns:\n        bool: The return value. True for success, False otherwise.\n\n    \
         Raises:\n        AttributeError: The ``Raises`` section is a list of all exceptions\n            \
         that are relevant to the interface.\n        ValueError: If `param2` is equal to `param1`.\n\n    \
         Attributes:\n        attr1 (str): Description of `attr1`.",
        Language::Python,
    );
    assert_eq!(d.style, Style::Google);
    assert_eq!(
        d.params,
        [
            p("param1", Some("int"), "The first parameter."),
            p(
                "param2",
                Some("str"),
                "The second parameter. Defaults to None.\nSecond line of description should be indented."
            ),
            p("*args", None, "Variable length argument list."),
        ]
    );
    assert_eq!(
        d.returns,
        ret(
            Some("bool"),
            "The return value. True for success, False otherwise."
        )
    );
    assert_eq!(
        d.raises,
        [
            e(
                Some("AttributeError"),
                "The ``Raises`` section is a list of all exceptions\nthat are relevant to the interface."
            ),
            e(Some("ValueError"), "If `param2` is equal to `param1`."),
        ]
    );
    // On purpose: attributes are not parameters.
    assert_eq!(d.others.len(), 1);
    assert_eq!(d.others[0].section, "attribute");
    assert_eq!(d.others[0].text, "attr1 (str): Description of `attr1`.");
}

/// Google `Returns:` without a type, and `Yields:`: the first is the return.
#[test]
fn google_untyped_return_and_yields() {
    let d = parse(
        "Counts.\n\nReturns:\n    The number of items\n    found.\n\nYields:\n    int: each item",
        Language::Python,
    );
    assert_eq!(d.returns, ret(None, "The number of items\nfound."));
    assert_eq!(d.others[0].section, "yields");
    assert_eq!(d.others[0].text, "int: each item");
}

/// numpydoc's format guide (numpydoc.readthedocs.io, "Sections").
#[test]
fn numpy_format_guide() {
    let d = parse(
        "Solve the matrix.\n\n\
         Parameters\n----------\n\
         x : type\n    Description of parameter `x`.\n\
         y\n    Description of parameter `y` (with type not specified).\n\
         copy : bool, default True\n    Whether to copy.\n\
         order : {'C', 'F', 'A'}, optional\n    The layout.\n\n\
         Returns\n-------\n\
         int\n    Description of anonymous integer return value.\n\n\
         Raises\n------\n\
         LinAlgException\n    If the matrix is not numerically invertible.\n\n\
         Warns\n-----\n\
         RuntimeWarning\n    Sometimes.\n\n\
         See Also\n--------\n\
         average : Weighted average.",
        Language::Python,
    );
    assert_eq!(d.style, Style::Numpy);
    assert_eq!(
        d.params,
        [
            p("x", Some("type"), "Description of parameter `x`."),
            p(
                "y",
                None,
                "Description of parameter `y` (with type not specified)."
            ),
            p("copy", Some("bool"), "Whether to copy."),
            p("order", Some("{'C', 'F', 'A'}"), "The layout."),
        ]
    );
    assert_eq!(
        d.returns,
        ret(
            Some("int"),
            "Description of anonymous integer return value."
        )
    );
    assert_eq!(
        d.raises,
        [e(
            Some("LinAlgException"),
            "If the matrix is not numerically invertible."
        )]
    );
    // Warns are not raises, on purpose.
    assert_eq!(sections(&d.others), ["warns", "see_also"]);
}

/// NumPy's tuple returns: the first is the return, the others are kept.
#[test]
fn numpy_several_returns() {
    let d = parse(
        "Splits.\n\nReturns\n-------\nhead : str\n    The start.\ntail : str\n    The rest.",
        Language::Python,
    );
    assert_eq!(d.returns, ret(Some("str"), "The start."));
    assert_eq!(d.others.len(), 1);
    assert_eq!(d.others[0].section, "returns");
    assert_eq!(d.others[0].text, "str: The rest.");
}

/// Epydoc's manual, "Fields" (epydoc.sourceforge.net/manual-fields.html).
#[test]
fn epytext_fields() {
    let d = parse(
        "Return the x intercept of the line M{y=m*x+b}.\n\n\
         @param m: The slope of the line.\n@type m: number\n\
         @param b: The y intercept of the line.\n@type b: number\n\
         @return: the x intercept of the line M{y=m*x+b}.\n@rtype: number\n\
         @raise ZeroDivisionError: if m is zero.",
        Language::Python,
    );
    assert_eq!(d.style, Style::Epytext);
    assert_eq!(
        d.params,
        [
            p("m", Some("number"), "The slope of the line."),
            p("b", Some("number"), "The y intercept of the line."),
        ]
    );
    assert_eq!(
        d.returns,
        ret(Some("number"), "the x intercept of the line M{y=m*x+b}.")
    );
    assert_eq!(d.raises, [e(Some("ZeroDivisionError"), "if m is zero.")]);
}

/// Prose, and an empty docstring.
#[test]
fn plain_and_none() {
    assert_eq!(
        parse("Just prose: no fields.", Language::Python).style,
        Style::Plain
    );
    assert_eq!(parse("   \n  ", Language::Python).style, Style::None);
    assert_eq!(parse("", Language::Java).style, Style::None);
    assert_eq!(parse("/** */", Language::Java).style, Style::None);
}

/// CodeSearchNet's published Python text keeps a string prefix and its opening quotes.
#[test]
fn python_published_text() {
    let d = parse("r\"\"\"Reads.\n\n    :param path: where", Language::Python);
    assert_eq!(d.params, [p("path", None, "where")]);
}

/// Forcing a style that does not fit gives nothing.
#[test]
fn forced_style_that_does_not_fit() {
    let d = parse_as("Args:\n    no colon here", Style::Google);
    assert_eq!(d.style, Style::Plain);
    assert!(d.params.is_empty());
}

/// Oracle's "How to Write Doc Comments for the Javadoc Tool", and the JDK's
/// Documentation Comment Specification (`@throws`, `@exception`, `@param <T>`,
/// `{@return}`).
#[test]
fn javadoc_tags() {
    let d = parse(
        "Returns an Image object that can then be painted on the screen.\n\
         The url argument must specify an absolute {@link URL}.\n\n\
         @param  url  an absolute URL giving the base location of the image\n\
         @param  name the location of the image, relative to the url argument\n\
         @param <T> the type of the observer\n\
         @return      the image at the specified URL\n\
         @throws IOException if the image cannot be read\n\
         @exception IllegalArgumentException if the url is not absolute\n\
         @see         Image\n\
         @since 1.0",
        Language::Java,
    );
    assert_eq!(d.style, Style::Javadoc);
    assert_eq!(
        d.params,
        [
            p(
                "url",
                None,
                "an absolute URL giving the base location of the image"
            ),
            p(
                "name",
                None,
                "the location of the image, relative to the url argument"
            ),
            p("<T>", None, "the type of the observer"),
        ]
    );
    assert_eq!(d.returns, ret(None, "the image at the specified URL"));
    assert_eq!(
        d.raises,
        [
            e(Some("IOException"), "if the image cannot be read"),
            e(
                Some("IllegalArgumentException"),
                "if the url is not absolute"
            ),
        ]
    );
    assert_eq!(sections(&d.others), ["see", "since"]);
}

/// A multi-line tag, the inline `{@return}`, and an annotation in a `<pre>` code sample.
#[test]
fn javadoc_inline_return_and_code_samples() {
    let d = parse(
        "/**\n * {@return the number of elements} Counts them.\n * <pre>{@code\n * @Override\n * public int size() { }\n * }</pre>\n * @param from where\n *     to start\n */",
        Language::Java,
    );
    assert_eq!(d.params, [p("from", None, "where\nto start")]);
    assert_eq!(d.returns, ret(None, "the number of elements"));
    assert!(d.others.is_empty(), "{:?}", d.others);
}

/// jsdoc.app's `@param`, `@returns`, `@throws` and `@yields` pages.
#[test]
fn jsdoc_tags() {
    let d = parse(
        "Assign the project to a list of employees.\n\
         @param {Object[]} employees - The employees who are responsible for the project.\n\
         @param {string} employees[].name - The name of an employee.\n\
         @param {string} [somebody=John Doe] - Somebody's name.\n\
         @param {...number} num - A positive or negative number.\n\
         @param {{a: number, b: string}} pair - Nested braces.\n\
         @param callback The callback.\n\
         @returns {Promise<number>} Sum of a and b\n\
         @throws {InvalidArgumentException}\n\
         @throws Will throw an error if the argument is null.\n\
         @example\nfoo(1)",
        Language::JavaScript,
    );
    assert_eq!(d.style, Style::Jsdoc);
    assert_eq!(
        d.params,
        [
            p(
                "employees",
                Some("Object[]"),
                "The employees who are responsible for the project."
            ),
            p(
                "employees[].name",
                Some("string"),
                "The name of an employee."
            ),
            p("somebody", Some("string"), "Somebody's name."),
            p("num", Some("...number"), "A positive or negative number."),
            p("pair", Some("{a: number, b: string}"), "Nested braces."),
            p("callback", None, "The callback."),
        ]
    );
    assert_eq!(d.returns, ret(Some("Promise<number>"), "Sum of a and b"));
    assert_eq!(
        d.raises,
        [
            e(Some("InvalidArgumentException"), ""),
            e(None, "Will throw an error if the argument is null."),
        ]
    );
    assert_eq!(sections(&d.others), ["example"]);
    assert_eq!(d.others[0].text, "foo(1)");
}

/// TypeScript: TSDoc's `@param name - description`, `@throws {@link E}`, and `@yields`
/// standing in for the return.
#[test]
fn jsdoc_tsdoc_and_generators() {
    let d = parse(
        "// Walks.\n/** @param root - Where to start\n * @yields {Node} every node\n * @throws {@link WalkError} on cycles */",
        Language::TypeScript,
    );
    assert_eq!(d.params, [p("root", None, "Where to start")]);
    assert_eq!(d.returns, ret(Some("Node"), "every node"));
    assert_eq!(d.raises, [e(Some("WalkError"), "on cycles")]);
}

/// phpDocumentor's tag reference (`@param`, `@return`, `@throws`).
#[test]
fn phpdoc_tags() {
    let d = parse(
        "Counts the number of items in the provided array.\n\n\
         @param mixed[] $items Array structure to count the elements of.\n\
         @param string &$out Where the result goes.\n\
         @param int ...$numbers Any number of numbers.\n\
         @param $untyped A parameter without a type.\n\
         @param array<string, int> $map A generic type with a space.\n\
         @param callable(int): bool $filter A callable type.\n\
         @throws \\InvalidArgumentException if the provided argument is not of type 'array'.\n\
         @return int|null Returns the number of elements.\n\
         @since 1.0",
        Language::Php,
    );
    assert_eq!(d.style, Style::Phpdoc);
    assert_eq!(
        d.params,
        [
            p(
                "items",
                Some("mixed[]"),
                "Array structure to count the elements of."
            ),
            p("out", Some("string"), "Where the result goes."),
            p("numbers", Some("int"), "Any number of numbers."),
            p("untyped", None, "A parameter without a type."),
            p(
                "map",
                Some("array<string, int>"),
                "A generic type with a space."
            ),
            p("filter", Some("callable(int): bool"), "A callable type."),
        ]
    );
    assert_eq!(
        d.returns,
        ret(Some("int|null"), "Returns the number of elements.")
    );
    assert_eq!(
        d.raises,
        [e(
            Some("\\InvalidArgumentException"),
            "if the provided argument is not of type 'array'."
        )]
    );
    assert_eq!(sections(&d.others), ["since"]);
}

/// PHP `#` comments as CodeSearchNet published them.
#[test]
fn phpdoc_hash_comment() {
    let d = parse("# @param int $x the x", Language::Php);
    assert_eq!(d.params, [p("x", Some("int"), "the x")]);
}

/// YARD's Tags.md: both `@param` forms, `@return`, `@raise`, `@option`, `@yield`.
#[test]
fn yard_tags() {
    let d = parse(
        "# Converts the object into textual markup given a specific format.\n\
         #\n\
         # @param format [Symbol] the format type, `:text` or `:html`\n\
         # @param [Hash] opts the options\n\
         # @option opts [String] :subject The subject\n\
         # @yield [a, b] Gives 2 random numbers to the block\n\
         # @return [String, nil] the object converted into the expected format.\n\
         # @raise [AccountBalanceError] if the account does not have sufficient funds\n\
         # @example Reverse a string\n\
         #   \"mystring\".reverse #=> \"gnirtsym\"",
        Language::Ruby,
    );
    assert_eq!(d.style, Style::Yard);
    assert_eq!(
        d.params,
        [
            p(
                "format",
                Some("Symbol"),
                "the format type, `:text` or `:html`"
            ),
            p("opts", Some("Hash"), "the options"),
        ]
    );
    assert_eq!(
        d.returns,
        ret(
            Some("String, nil"),
            "the object converted into the expected format."
        )
    );
    assert_eq!(
        d.raises,
        [e(
            Some("AccountBalanceError"),
            "if the account does not have sufficient funds"
        )]
    );
    assert_eq!(sections(&d.others), ["option", "yield", "example"]);
}

/// Ruby's cleaned text (no `#`), a directive, and RDoc prose (plain).
#[test]
fn yard_cleaned_text_and_directives() {
    let d = parse(
        "Sets the options.\n@param opts [Hash] options\n@!visibility private",
        Language::Ruby,
    );
    assert_eq!(d.params, [p("opts", Some("Hash"), "options")]);
    assert_eq!(sections(&d.others), ["!visibility"]);
    assert_eq!(
        parse("Returns the +count+.", Language::Ruby).style,
        Style::Plain
    );
}

/// go.dev/doc/comment: prose only, and the `Deprecated:` paragraph.
#[test]
fn go_comments() {
    let d = parse(
        "// Title returns a copy of the string s with all Unicode letters that begin words\n// mapped to their Unicode title case.\n//\n// Deprecated: The rule Title uses for word boundaries does not handle Unicode\n// punctuation properly. Use golang.org/x/text/cases instead.",
        Language::Go,
    );
    assert_eq!(d.style, Style::Godoc);
    assert!(d.params.is_empty() && d.returns.is_none() && d.raises.is_empty());
    assert_eq!(d.others[0].section, "deprecated");
    assert_eq!(
        d.others[0].text,
        "The rule Title uses for word boundaries does not handle Unicode\npunctuation properly. Use golang.org/x/text/cases instead."
    );
    // Go has no parameter syntax: a `@param` line is prose.
    let d = parse("Run runs.\n@param x nothing", Language::Go);
    assert_eq!(d.style, Style::Plain);
}

/// The Rust API guidelines' sections (C-FAILURE: `# Errors`, `# Panics`) and the
/// `# Arguments` list the rustdoc book shows; a doctest's hidden `# use` line is code.
#[test]
fn rustdoc_sections() {
    let d = parse(
        "/// Opens a file in write-only mode.\n\
         ///\n\
         /// # Arguments\n\
         ///\n\
         /// * `path` - A path to the file.\n\
         /// * `mode`: The permissions,\n\
         ///   in octal.\n\
         ///\n\
         /// # Returns\n\
         ///\n\
         /// The open file.\n\
         ///\n\
         /// # Errors\n\
         ///\n\
         /// * [`io::ErrorKind::NotFound`] if `path` does not exist.\n\
         /// * [`Error::Permission`](crate::Error) if it cannot be written.\n\
         ///\n\
         /// # Panics\n\
         ///\n\
         /// Panics if the path is empty.\n\
         ///\n\
         /// # Examples\n\
         ///\n\
         /// ```\n\
         /// # use std::fs::File;\n\
         /// let f = File::create(\"foo.txt\")?;\n\
         /// ```",
        Language::Rust,
    );
    assert_eq!(d.style, Style::Rustdoc);
    assert_eq!(
        d.params,
        [
            p("path", None, "A path to the file."),
            p("mode", None, "The permissions,\nin octal."),
        ]
    );
    assert_eq!(d.returns, ret(None, "The open file."));
    assert_eq!(
        d.raises,
        [
            e(Some("io::ErrorKind::NotFound"), "if `path` does not exist."),
            e(Some("Error::Permission"), "if it cannot be written."),
            e(Some("panic"), "Panics if the path is empty."),
        ]
    );
    assert_eq!(sections(&d.others), ["Examples"]);
    assert!(d.others[0].text.contains("# use std::fs::File;"));
}

/// Errors written as prose, and a doc comment without sections.
#[test]
fn rustdoc_prose_errors_and_plain() {
    let d = parse(
        "Reads.\n\n# Errors\n\nFails if the file is missing.",
        Language::Rust,
    );
    assert_eq!(d.raises, [e(None, "Fails if the file is missing.")]);
    assert_eq!(parse("Just a summary.", Language::Rust).style, Style::Plain);
}

/// The C# specification's recommended tags (learn.microsoft.com, "Recommended XML tags
/// for C# documentation comments").
#[test]
fn xml_doc_tags() {
    let d = parse(
        "/// <summary>Adds two integers and returns the result.</summary>\n\
         /// <param name=\"a\">An integer.</param>\n\
         /// <param name=\"b\">An integer\n\
         ///   to add.</param>\n\
         /// <typeparam name=\"T\">The element type.</typeparam>\n\
         /// <returns>The sum of <paramref name=\"a\"/> and <paramref name=\"b\"/>.</returns>\n\
         /// <exception cref=\"System.OverflowException\">Thrown when one parameter is\n\
         /// <see cref=\"Int32.MaxValue\"/> and the other is greater than 0.</exception>\n\
         /// <remarks><para>First.</para><para>Second &amp; last.</para></remarks>\n\
         /// <seealso cref=\"Subtract\"/>",
        Language::CSharp,
    );
    assert_eq!(d.style, Style::XmlDoc);
    assert_eq!(
        d.params,
        [
            p("a", None, "An integer."),
            p("b", None, "An integer\nto add.")
        ]
    );
    assert_eq!(d.returns, ret(None, "The sum of a and b."));
    assert_eq!(
        d.raises,
        [e(
            Some("System.OverflowException"),
            "Thrown when one parameter is\nInt32.MaxValue and the other is greater than 0."
        )]
    );
    assert_eq!(sections(&d.others), ["typeparam", "remarks", "seealso"]);
    assert_eq!(d.others[0].text, "T: The element type.");
    // Paragraphs are separated by a blank line.
    assert_eq!(d.others[1].text, "First.\n\nSecond & last.");
    assert_eq!(d.others[2].text, "Subtract");
}

/// C# without XML: Javadoc-style tags, else prose.
#[test]
fn csharp_without_xml() {
    let d = parse("Adds.\n@param a the first", Language::CSharp);
    assert_eq!(d.style, Style::Javadoc);
    assert_eq!(d.params, [p("a", None, "the first")]);
    assert_eq!(parse("Adds a < b.", Language::CSharp).style, Style::Plain);
}

/// Doxygen's manual, "Special Commands" (`\param[dir]`, several names, `\return`,
/// `\retval`, `\throws`, `\tparam`, `\brief`, `@code`).
#[test]
fn doxygen_commands() {
    let d = parse(
        "/**\n\
          * \\brief Copies bytes from a source memory area to a destination memory area,\n\
          * where both areas may not overlap.\n\
          * @param[out] dest The memory area to copy to.\n\
          * @param[in]  src  The memory area to copy from.\n\
          * \\param x,y The coordinates.\n\
          * \\tparam T the element type.\n\
          * \\return A pointer to dest.\n\
          * \\retval NULL on failure.\n\
          * \\throws std::bad_alloc when out of memory.\n\
          * @code\n\
          * @param not_a_param\n\
          * @endcode\n\
          * \\note Overlap is undefined.\n\
          */",
        Language::Cpp,
    );
    assert_eq!(d.style, Style::Doxygen);
    assert_eq!(
        d.params,
        [
            p("dest", None, "The memory area to copy to."),
            p("src", None, "The memory area to copy from."),
            p("x", None, "The coordinates."),
            p("y", None, "The coordinates."),
        ]
    );
    assert_eq!(d.returns, ret(None, "A pointer to dest."));
    assert_eq!(d.raises, [e(Some("std::bad_alloc"), "when out of memory.")]);
    assert_eq!(sections(&d.others), ["tparam", "retval", "code", "note"]);
    assert_eq!(d.others[1].text, "NULL on failure.");
}

/// C's Javadoc-style comments are Doxygen's `@` spelling.
#[test]
fn doxygen_javadoc_style_in_c() {
    let d = parse("Frees.\n@param p the block\n@return nothing", Language::C);
    assert_eq!(d.style, Style::Doxygen);
    assert_eq!(d.params, [p("p", None, "the block")]);
}

/// Without a language, the convention that finds most.
#[test]
fn unknown_language_guesses() {
    assert_eq!(
        parse("<param name=\"x\">y</param>", Language::Other).style,
        Style::XmlDoc
    );
    assert_eq!(
        parse(":param x: y\n:returns: z", Language::Other).style,
        Style::Rest
    );
    assert_eq!(
        parse("@param {int} x y\n@returns {int} z", Language::Other).style,
        Style::Jsdoc
    );
    assert_eq!(Language::from_name("C#"), Language::CSharp);
    assert_eq!(Language::from_name("golang"), Language::Go);
    assert_eq!(Language::from_name("cobol"), Language::Other);
}

/// The serialised shape: the field names of the data contract (docs/docstrings.md).
#[test]
fn serialised_field_names() {
    let d = parse(
        "@param {int} x the x\n@returns {int} y\n@throws {E} z\n@see w",
        Language::JavaScript,
    );
    let v = serde_json::to_value(&d).unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "params": [{"name": "x", "type": "int", "description": "the x"}],
            "returns": {"type": "int", "description": "y"},
            "raises": [{"type": "E", "description": "z"}],
            "others": [{"section": "see", "text": "w"}],
            "style": "jsdoc",
        })
    );
    let none = serde_json::to_value(parse("", Language::Go)).unwrap();
    assert_eq!(none["returns"], serde_json::Value::Null);
    assert_eq!(none["style"], "none");
    for s in Style::ALL {
        assert_eq!(Style::from_name(s.as_str()), Some(s));
        assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
    }
}

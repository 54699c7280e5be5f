//! The `english` rule on real docstrings: English ones from requests, gson and redis, and
//! Chinese, Russian and German ones from public GitHub repositories, as written there.

use codemine_filters::english::{judge, keeps, Verdict};

#[test]
fn real_english_docstrings_are_kept() {
    for doc in [
        // requests (Python)
        "Returns an internal sequence dictionary update.",
        "Tries to guess the filename of the given object.",
        "Write a file to the disk in an atomic fashion",
        "Return True, if the host should be bypassed.\n\nChecks proxy settings gathered from \
         the environment, if specified,\nor the registry.",
        "Replace nonexistent paths that look like they refer to a member of a zip\narchive \
         with the location of an extracted copy of the target, or else\njust return the \
         provided path unchanged.",
        // gson (Javadoc, delimiters stripped)
        "Creates an empty JsonArray.",
        "Adds the specified number to self.\n\n@param number the number that needs to be \
         added to the array.\n@since 2.4",
        "Creates a deep copy of this element and all its children.\n\n@since 2.8.2",
        "A class representing an array type in JSON. An array is a list of {@link \
         JsonElement}s each of\nwhich can be of a different type. This is an ordered list, \
         meaning that the order in which\nelements are added is preserved.",
        // redis (C comment blocks)
        "Return the number of elements in the list.",
        "Free the whole list.\n\nThis function can't fail.",
    ] {
        assert_eq!(judge(doc), Verdict::English, "{doc}");
    }
}

#[test]
fn short_or_code_only_english_is_kept_even_when_unsure() {
    for doc in [
        "A proxy error occurred.",
        ":rtype: str",
        "Returns a key/value dictionary from a CookieJar.\n\n:param cj: CookieJar object to \
         extract cookies from.\n:rtype: dict",
        "kwargs for request(), options(), head(), delete().",
        "See: https://github.com/psf/requests/issues/2356",
        "@return the JSON_OBJECT",
        "",
        // A loanword or a name is not a foreign language.
        "Returns a naïve datetime.",
        "Written by Jürgen Müller.",
        "Uses the façade pattern.",
        "Strips accents: é becomes e, ü becomes u.",
    ] {
        assert!(keeps(doc), "{doc}: {:?}", judge(doc));
    }
}

#[test]
fn real_chinese_docstrings_are_dropped() {
    for doc in [
        "返回整体翻译进度统计，包括最近2小时速率。",
        "返回 AI 聊天 HTML 内容",
        "返回某一版的稿件列表 [(url, cid, title)]",
        "返回 (font_path, face_index)。解析不到就抛 FontError。",
        "返回当前用户可访问的店铺主键列表；管理员返回 None（不受限）。\n\n\
         供列表查询做数据范围隔离：非管理员仅可见其本人创建（或被授权）店铺下的\n\
         过滤规则 / 黑名单（需求 3.7）。\n\nArgs:\n    session: 数据库会话。\n    \
         operator_id: 当前操作用户 ID。",
        "显示宠物的信息",
    ] {
        assert_eq!(judge(doc), Verdict::NotEnglish, "{doc}");
    }
}

#[test]
fn real_russian_docstrings_are_dropped() {
    for doc in [
        "Возвращает список торговых точек для агента на определенный день.",
        "возвращает список активных счетов человека\n@param peopleMainId - id человека",
        "ищем последний баланс\n@param partnerId - партнер\n@param accountTypeId - тип счета",
    ] {
        assert_eq!(judge(doc), Verdict::NotEnglish, "{doc}");
    }
}

#[test]
fn real_german_docstrings_are_dropped() {
    for doc in [
        "Gibt die Anzahl der verfügbaren Proxies zurück.",
        "Gibt die Anzahl der Items, welche gleichzeitig dargestellt werden können, wenn alle \
         Items so Groß sind wie das kleinste Item in der\nList, zurück.",
        "Löscht alle Plays der gegebenen Songs lokal. Gibt die Anzahl entfernter Zeilen zurück.",
        "Gibt die Summe zurück.\n@return Summe",
        "Setzt alles zurück.",
    ] {
        assert_eq!(judge(doc), Verdict::NotEnglish, "{doc}");
    }
}

#[test]
fn short_unaccented_foreign_text_is_a_known_miss() {
    // Documented limitation: too little text and no accent to go on, so it is kept.
    assert_eq!(judge("Leert die Proxy-Liste."), Verdict::Unsure);
    assert!(keeps("Leert die Proxy-Liste."));
}

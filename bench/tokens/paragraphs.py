# ruff: noqa: RUF001, E501  (non-English text is the point of this file)
"""Short non-English paragraphs of the kind an agent stores (notes, decisions, summaries).

Written for this bench (not copied from anywhere), so that non-English text in the corpus is not
only the terse UI messages of the gettext catalogues. Keyed by language; each paragraph is one
corpus entry.
"""

from __future__ import annotations

PARAGRAPHS: dict[str, list[str]] = {
    "de": [
        "Wir haben entschieden, die Konfiguration in einer einzigen TOML-Datei abzulegen. Die "
        "alte YAML-Variante war schwer zu prüfen, und mehrere Entwickler hatten widersprüchliche "
        "Werte eingetragen, ohne dass ein Test das bemerkt hätte.",
        "Der nächtliche Build schlägt seit Dienstag fehl, weil der Cache-Server nicht erreichbar "
        "ist. Vorläufige Lösung: Zwischenspeicher deaktivieren und die Abhängigkeiten direkt aus "
        "dem Paketverzeichnis laden. Das verlängert den Build um etwa vier Minuten.",
        "Bitte keine Zugangsdaten in die Notizen schreiben. Passwörter und Schlüssel gehören in "
        "den Tresor; hier stehen nur Verweise darauf, zum Beispiel der Name des Eintrags.",
        "Beim Umbenennen der Datenbanktabellen müssen die Migrationen in der richtigen Reihenfolge "
        "laufen. Zuerst die neue Spalte anlegen, dann die Daten kopieren, erst danach die alte "
        "Spalte löschen. Sonst gehen bei einem Abbruch Daten verloren.",
        "Die Suchfunktion liefert bei Umlauten schlechtere Ergebnisse, weil die Wörter nicht "
        "normalisiert werden. Vorschlag: vor dem Indizieren in Kleinbuchstaben umwandeln und "
        "Akzente vereinheitlichen.",
        "Zusammenfassung der Besprechung: Das Team bevorzugt kleine, häufige Veröffentlichungen. "
        "Jede Änderung bekommt einen Eintrag im Änderungsprotokoll, und größere Entscheidungen "
        "werden als kurze Architekturnotiz festgehalten.",
    ],
    "fr": [
        "Nous avons choisi de garder la mémoire de l'agent sous forme de fichiers Markdown, un "
        "par sujet. Ainsi, n'importe quel développeur peut les lire et les corriger sans outil "
        "particulier, et l'historique reste visible dans le dépôt.",
        "Le test d'intégration échoue de façon aléatoire sur la machine de CI : le serveur de "
        "base de données met parfois plus de trente secondes à démarrer. Il faut attendre qu'il "
        "réponde avant de lancer les requêtes, au lieu d'un délai fixe.",
        "Ne jamais écrire de mot de passe ni de jeton dans les notes. Si une clé a fuité, la "
        "révoquer immédiatement, puis noter ici la date et le nom du service concerné.",
        "Résumé de la réunion : la nouvelle interface en ligne de commande remplace l'ancien "
        "script. Les options restent compatibles, mais les messages d'erreur sont plus courts et "
        "indiquent toujours le fichier en cause.",
        "Pour reproduire le problème, créer un dépôt vide, ajouter deux entrées avec le même "
        "titre, puis lancer la compaction. La seconde entrée disparaît alors qu'elle devrait "
        "être fusionnée avec la première.",
        "Les performances se dégradent quand un fragment dépasse cent kilo-octets. Nous limitons "
        "désormais la taille de chaque fragment et découpons automatiquement les plus gros.",
    ],
    "es": [
        "Decidimos guardar la memoria del agente en archivos Markdown, uno por tema, para que "
        "cualquier persona pueda leerlos y editarlos sin herramientas especiales.",
        "La compilación nocturna falla desde el martes porque el servidor de caché no responde. "
        "Solución temporal: desactivar la caché y descargar las dependencias directamente. El "
        "proceso tarda unos cuatro minutos más.",
        "No escribas contraseñas ni claves en las notas. Si una credencial se filtra, revócala "
        "de inmediato y anota aquí la fecha y el servicio afectado.",
        "Resumen de la reunión: el equipo prefiere publicaciones pequeñas y frecuentes. Cada "
        "cambio tiene una entrada en el registro de cambios y las decisiones importantes se "
        "documentan en una nota breve.",
        "La búsqueda da peores resultados con acentos porque las palabras no se normalizan. "
        "Propuesta: convertir a minúsculas y quitar los acentos antes de indexar.",
    ],
    "ru": [
        "Мы решили хранить память агента в виде файлов Markdown, по одному на тему. Так любой "
        "разработчик может прочитать и исправить их без специальных инструментов, а история "
        "изменений остаётся в репозитории.",
        "Ночная сборка падает со вторника: сервер кэша не отвечает. Временное решение — "
        "отключить кэш и загружать зависимости напрямую. Сборка занимает примерно на четыре "
        "минуты больше.",
        "Никогда не записывайте пароли и токены в заметки. Если ключ утёк, немедленно отзовите "
        "его и укажите здесь дату и название сервиса.",
        "Итоги встречи: новая утилита командной строки заменяет старый скрипт. Параметры "
        "остаются совместимыми, но сообщения об ошибках стали короче и всегда называют файл, в "
        "котором возникла проблема.",
        "Чтобы воспроизвести ошибку, создайте пустой репозиторий, добавьте две записи с "
        "одинаковым заголовком и запустите сжатие. Вторая запись пропадает, хотя должна была "
        "объединиться с первой.",
        "Поиск хуже работает со словами в разных падежах, потому что мы не используем "
        "стемминг. Предложение: добавить простой стеммер для русского языка как необязательную "
        "зависимость.",
    ],
    "uk": [
        "Ми вирішили зберігати пам'ять агента у файлах Markdown, по одному на тему, щоб будь-хто "
        "міг їх прочитати й виправити без спеціальних інструментів.",
        "Нічна збірка не проходить з вівторка, бо сервер кешу не відповідає. Тимчасове рішення: "
        "вимкнути кеш і завантажувати залежності напряму.",
        "Ніколи не записуйте паролі чи токени в нотатки. Якщо ключ потрапив назовні, негайно "
        "відкличте його і вкажіть тут дату та назву сервісу.",
        "Підсумки зустрічі: команда віддає перевагу невеликим і частим випускам. Кожна зміна "
        "має запис у журналі змін, а важливі рішення описуємо в короткій нотатці.",
    ],
    "zh": [
        "我们决定把智能体的记忆保存为 Markdown 文件，每个主题一个文件。这样任何开发者都可以直接阅读和修改，"
        "修改历史也保留在代码仓库中。",
        "从周二开始，夜间构建一直失败，原因是缓存服务器无法连接。临时方案：关闭缓存，直接下载依赖。"
        "构建时间大约增加四分钟。",
        "不要在笔记中写入密码或令牌。如果密钥泄露，请立即吊销，并在这里记录日期和相关服务的名称。",
        "会议纪要：团队倾向于小而频繁的发布。每次修改都要在变更日志中记录，重要的决定写成简短的架构说明。",
        "复现步骤：新建一个空仓库，添加两条标题相同的记录，然后运行压缩。第二条记录会消失，"
        "但它本应与第一条合并。",
        "搜索对中文的效果较差，因为当前的分词只按空格切分。建议：对中日韩文字按单个字符或双字切分后再建立索引。",
    ],
    "ja": [
        "エージェントの記憶はトピックごとに一つの Markdown ファイルとして保存することにしました。"
        "特別な道具がなくても、誰でも読んで直すことができます。",
        "火曜日から夜間ビルドが失敗しています。キャッシュサーバーに接続できないためです。"
        "暫定対応として、キャッシュを無効にして依存関係を直接取得します。",
        "パスワードやトークンをメモに書かないでください。鍵が漏れた場合はすぐに無効化し、"
        "日付とサービス名をここに記録してください。",
        "会議のまとめ：小さく頻繁なリリースを優先します。すべての変更は変更履歴に記載し、"
        "重要な判断は短い設計メモとして残します。",
    ],
    "ko": [
        "에이전트의 기억은 주제마다 하나의 Markdown 파일로 저장하기로 했습니다. 특별한 도구 없이도 누구나 "
        "읽고 고칠 수 있습니다.",
        "화요일부터 야간 빌드가 실패하고 있습니다. 캐시 서버에 연결할 수 없기 때문입니다. 임시 해결책으로 "
        "캐시를 끄고 의존성을 직접 내려받습니다.",
        "비밀번호나 토큰을 메모에 적지 마세요. 키가 유출되면 즉시 폐기하고 날짜와 서비스 이름을 여기에 "
        "기록하세요.",
    ],
}

SCRIPT = {
    "de": "latin",
    "fr": "latin",
    "es": "latin",
    "ru": "cyrillic",
    "uk": "cyrillic",
    "zh": "cjk",
    "ja": "cjk",
    "ko": "cjk",
}

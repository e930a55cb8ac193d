"""A generated shop for focused-crawling tests and the recall benchmark, served on 127.0.0.1.

Realistic navigation, as in the xCrawl paper's review sites: a header menu, a category
hierarchy (category -> brand -> paginated product lists), product pages with breadcrumbs
and related products, a site map page, a blog, a GET search form, and sections on other
products built from structurally identical pages (cameras versus printers, phones ...).
URLs carry ids, not words, as many shops' do. The brand menus are built by JavaScript on
hover (a crawler reading HTML does not see them; the category pages link the brands too).
As in real shops, some anchors in off-topic sections name the topic (camera bags, lens
care, webcams "for zoom calls", a guide to phone cameras): the text features that mislead
content-based focused crawlers in the xCrawl paper. Those pages mention one topic word
at most, so the validator does not accept them.
"""

from __future__ import annotations

import html
import json
import random
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from tests.crawler.servers import RequestHandler, Response, SiteServer

VOCABULARY = {
    "cameras": {
        "label": "Digital cameras",
        "noun": "camera",
        "brands": ["Canon", "Nikon", "Sony", "Fujifilm", "Panasonic", "Olympus", "Pentax"],
        "models": ["EOS", "Coolpix", "Alpha", "X-T", "Lumix", "OM", "K"],
        "lines": [
            "The {name} pairs a {n}-megapixel sensor with a {z}x optical zoom lens.",
            "Its lens mount accepts fast primes, and the sensor handles low light well.",
            "Autofocus locks quickly, and the zoom ring turns smoothly from wide to tele.",
            "We shot test charts at every focal length to judge the lens and the sensor.",
            "Image stabilisation in the body helps when the zoom reaches its longest end.",
            "The camera records 4K video and keeps the sensor cool through long takes.",
        ],
    },
    "printers": {
        "label": "Printers",
        "noun": "printer",
        "brands": ["Canon", "Epson", "HP", "Brother", "Kodak", "Xerox", "Lexmark"],
        "models": ["PIXMA", "EcoTank", "LaserJet", "MFC", "ESP", "VersaLink", "MB"],
        "lines": [
            "The {name} prints {n} pages per minute at up to {z}00 dpi.",
            "Ink cartridges are cheap to replace, and the paper tray holds 250 sheets.",
            "Duplex printing works without fuss, and the scanner glass is generous.",
            "Print photos straight from a memory card, a phone or a camera over Wi-Fi.",
            "Toner lasts for months in a small office, and the fuser warms up fast.",
            "Borderless prints come out sharp, and colours stay close to the screen.",
        ],
    },
    "phones": {
        "label": "Phones",
        "noun": "phone",
        "brands": ["Samsung", "Apple", "Google", "Sony", "Nokia", "Motorola", "OnePlus"],
        "models": ["Galaxy", "iPhone", "Pixel", "Xperia", "G", "Edge", "Nord"],
        "lines": [
            "The {name} has a {n}-hour battery and a {z}-inch OLED display.",
            "Charging takes under an hour, and the display stays readable outdoors.",
            "The modem handles 5G well, and calls sound clear on both ends.",
            "Storage starts at 128 GB, and the chip keeps apps responsive for years.",
            "Its camera app is simple, and the speakers are loud for a phone.",
            "Security updates are promised for five years, and the frame is aluminium.",
        ],
    },
    "laptops": {
        "label": "Laptops",
        "noun": "laptop",
        "brands": ["Lenovo", "Dell", "HP", "Asus", "Acer", "Apple", "Microsoft"],
        "models": ["ThinkPad", "XPS", "Spectre", "ZenBook", "Swift", "MacBook", "Surface"],
        "lines": [
            "The {name} runs a {n}-core processor with {z} GB of memory.",
            "The keyboard is comfortable, and the trackpad is large and precise.",
            "Battery life reaches a full working day, and the fans stay quiet.",
            "The SSD is fast, and a second slot leaves room for more storage.",
            "Ports include USB-C, HDMI and a headphone jack on the left side.",
            "The hinge feels solid, and the screen opens with one hand.",
        ],
    },
    "televisions": {
        "label": "Televisions",
        "noun": "television",
        "brands": ["LG", "Samsung", "Sony", "Philips", "Panasonic", "TCL", "Hisense"],
        "models": ["OLED", "QLED", "Bravia", "Ambilight", "Viera", "C", "U"],
        "lines": [
            "The {name} has a {n}-inch panel with {z} HDMI inputs.",
            "Black levels are deep, and the panel handles fast sport without blur.",
            "The remote is simple, and the smart platform starts up quickly.",
            "Sound from the built-in speakers is clear, though a soundbar helps.",
            "Gaming modes cut input lag, and the panel supports variable refresh.",
            "The stand is sturdy, and the set mounts on any standard wall bracket.",
        ],
    },
    "accessories": {
        # Sub-lists by type, as shops do: anchors name the topic, the pages are not about it.
        "label": "Accessories",
        "brands": [
            "Camera bags",
            "Lens care",
            "Tripods",
            "Memory cards",
            "Chargers",
            "Webcams",
            "Mice",
        ],
        "models": ["Lowepro", "Zeiss", "Manfrotto", "SanDisk", "Anker", "Logitech", "Razer"],
        "names": [
            "{model} camera bag {n}",
            "{model} lens cleaning kit {n}",
            "{model} travel tripod {n}",
            "{model} memory card {n} GB",
            "{model} charger {n} W",
            "{model} webcam for zoom calls {n}",
            "{model} mouse {n}",
        ],
        "lines": [
            "The {name} is made for people on the move, at {n} euros.",
            "Cables are braided, and the case survives a drop from a table.",
            "It reads and writes fast enough for any device you own.",
            "The mouse glides on glass, and the receiver stores inside it.",
            "The bag has a padded sleeve, and its straps stay comfortable all day.",
            "Setup takes a minute, and the warranty runs for two years.",
        ],
    },
    "tablets": {
        "label": "Tablets",
        "noun": "tablet",
        "brands": ["Apple", "Samsung", "Lenovo", "Amazon", "Microsoft", "Xiaomi", "Huawei"],
        "models": ["iPad", "Galaxy Tab", "Tab P", "Fire HD", "Surface Go", "Pad", "MatePad"],
        "lines": [
            "The {name} has a {z}-inch screen and weighs {n}0 grams.",
            "The stylus attaches with magnets, and handwriting feels natural.",
            "Streaming video looks great, and the speakers fill a small room.",
            "The keyboard cover turns it into a light laptop for the train.",
            "Battery life covers a long flight, and charging uses USB-C.",
            "Parental controls are easy to set up for children.",
        ],
    },
    "headphones": {
        "label": "Headphones",
        "noun": "headphones",
        "brands": ["Sony", "Bose", "Sennheiser", "JBL", "Beyerdynamic", "Jabra", "AKG"],
        "models": ["WH", "QuietComfort", "Momentum", "Tune", "DT", "Elite", "K"],
        "lines": [
            "The {name} cancels noise well and lasts {n} hours on a charge.",
            "The ear cushions are soft, and the headband never pinches.",
            "Bass is punchy without drowning the vocals, and the treble is clean.",
            "Pairing with two devices at once works, and the app has an equaliser.",
            "The microphone picks up voices clearly on calls in the street.",
            "They fold flat into a hard case that fits in a backpack.",
        ],
    },
    "smartwatches": {
        "label": "Smartwatches",
        "noun": "smartwatch",
        "brands": ["Garmin", "Apple", "Samsung", "Fitbit", "Polar", "Suunto", "Withings"],
        "models": ["Forerunner", "Watch", "Galaxy Watch", "Sense", "Vantage", "Race", "ScanWatch"],
        "lines": [
            "The {name} tracks {n} sports and lasts {z} days between charges.",
            "Heart rate readings match a chest strap closely on steady runs.",
            "GPS locks on quickly, and the maps are readable in sunlight.",
            "Sleep tracking is detailed, and the strap is comfortable at night.",
            "Notifications arrive promptly, and replies use preset messages.",
            "It is water resistant to fifty metres and survives the pool.",
        ],
    },
    "monitors": {
        "label": "Monitors",
        "noun": "monitor",
        "brands": ["Dell", "LG", "Asus", "BenQ", "Eizo", "AOC", "ViewSonic"],
        "models": ["UltraSharp", "UltraGear", "ProArt", "PD", "ColorEdge", "Q", "VX"],
        "lines": [
            "The {name} is a {z}-inch panel refreshing at {n}0 Hz.",
            "Colours are accurate out of the box, and the backlight is even.",
            "The stand adjusts in height and tilt, and the panel rotates.",
            "A single USB-C cable charges a laptop and carries the picture.",
            "Text is crisp at this resolution, and scaling works well.",
            "Response times are low enough for fast games without ghosting.",
        ],
    },
    "consoles": {
        "label": "Game consoles",
        "noun": "console",
        "brands": ["Sony", "Microsoft", "Nintendo", "Valve", "Asus", "Lenovo", "Anbernic"],
        "models": ["PlayStation", "Xbox", "Switch", "Steam Deck", "ROG Ally", "Legion Go", "RG"],
        "lines": [
            "The {name} runs games at {n} frames per second with {z} GB of storage.",
            "The controller feels solid, and the triggers give good feedback.",
            "Loading times are short thanks to the fast internal drive.",
            "Online play is stable, and the store has frequent discounts.",
            "It stays quiet under load, and the fan noise is barely audible.",
            "Backward compatibility lets you keep playing older games.",
        ],
    },
    "kitchen": {
        "label": "Kitchen appliances",
        "noun": "appliance",
        "brands": ["Bosch", "Philips", "KitchenAid", "Smeg", "Braun", "Tefal", "Kenwood"],
        "models": ["Serie", "Airfryer", "Artisan", "KLF", "MultiQuick", "ActiFry", "Chef"],
        "lines": [
            "The {name} draws {n}00 watts and holds {z} litres.",
            "Cleaning is easy, and the removable parts go in the dishwasher.",
            "It heats up quickly, and the controls are clear and simple.",
            "The bowl is sturdy, and the lid locks firmly in place.",
            "Recipes in the booklet are a good start for beginners.",
            "It takes little space on the counter and looks good.",
        ],
    },
}
COMMON_LINES = [
    "Build quality is good for the price, and the finish resists fingerprints.",
    "We used it for two weeks at home and at work before writing this review.",
    "The manual is clear, and support answered our questions within a day.",
    "Compared with last year's model, the changes are small but welcome.",
    "Shipping was quick, and the box holds everything you need to start.",
    "Prices drop often, so it is worth waiting for a sale if you can.",
]
GUIDES = {
    "cameras": [
        "How to choose a camera sensor size",
        "Zoom lens or prime lens: what suits your camera",
        "Megapixels explained: does the sensor matter more",
        "Cleaning your camera sensor and lens safely",
    ],
    "printers": ["Ink or laser printer for a home office", "Printing photos at home"],
    "phones": [
        "Keeping a phone battery healthy",
        "Is 5G worth it yet",
        "Phone cameras: good enough for holidays",
    ],
    "laptops": ["Picking a laptop for students", "How much memory does a laptop need"],
    "televisions": ["OLED or QLED television", "Setting up a television for sport"],
    "tablets": ["A tablet for reading", "Do you need a stylus"],
    "headphones": ["Noise cancelling explained", "Open or closed headphones"],
    "smartwatches": ["Training with a heart rate watch"],
    "monitors": ["Which refresh rate do you need", "A monitor for photo editing"],
    "consoles": ["Handheld or home console"],
    "kitchen": ["Air fryers compared", "Looking after a stand mixer"],
    "accessories": [
        "Chargers that are safe to travel with",
        "Choosing a memory card",
        "A camera bag for hiking",
        "Lens cloths and what to avoid",
    ],
}
TOPIC_WORDS = ["camera", "sensor", "zoom", "lens", "megapixel"]
ORDER = [
    "laptops",
    "phones",
    "tablets",
    "televisions",
    "headphones",
    "cameras",
    "monitors",
    "printers",
    "smartwatches",
    "consoles",
    "kitchen",
    "accessories",
]


@dataclass
class Product:
    id: int
    category: str
    brand: str
    name: str
    text: list[str]
    related: list[int] = field(default_factory=list)


@dataclass
class Shop:
    """The generated content; `serve(server)` puts it on a local server."""

    products: dict[int, Product]
    listings: dict[tuple[str, str], list[int]]  # (category, brand) -> product ids
    guides: list[tuple[int, str, str, list[str]]]  # (id, category, title, paragraphs)
    page_size: int
    search_results: int = 10
    categories: list[str] = field(default_factory=lambda: list(ORDER))
    footer: list[tuple[str, str]] = field(default_factory=list)  # extra (href, text) links
    robots: str | None = None  # robots.txt text, None: 404

    @property
    def category_ids(self) -> dict[str, int]:
        return {name: number for number, name in enumerate(self.categories, start=1)}

    def brand_ids(self, category: str) -> dict[str, int]:
        brands = VOCABULARY[category]["brands"]
        return {brand: number for number, brand in enumerate(brands, start=1)}

    # --- Pages ------------------------------------------------------------------------------

    def page(self, title: str, main: str, crumbs: list[tuple[str, str]] = ()) -> str:
        menu = "".join(
            f"<li class='menu' data-cat='{number}'><a href='/cat/{number}'>"
            f"{VOCABULARY[name]['label']}</a></li>"
            for name, number in self.category_ids.items()
        )
        mega = {
            number: [[f"/list/{number}/{b}", brand] for brand, b in self.brand_ids(name).items()]
            for name, number in self.category_ids.items()
        }
        trail = " &rsaquo; ".join(f"<a href='{href}'>{html.escape(t)}</a>" for href, t in crumbs)
        return (
            "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{html.escape(title)} | GadgetHall</title></head><body>"
            "<header><a href='/'>GadgetHall</a>"
            "<form action='/search' method='get' role='search'><label for='q'>Search</label>"
            "<input type='search' id='q' name='q'><button>Search</button></form>"
            f"<nav><ul id='menu'>{menu}<li><a href='/blog'>Guides</a></li>"
            "<li><a href='/map'>Site map</a></li></ul><div id='mega'></div></nav></header>"
            f"<div class='crumbs'>{trail}</div><main>{main}</main>"
            "<footer><ul><li><a href='/about'>About us</a></li><li><a href='/help'>Help</a></li>"
            "<li><a href='/privacy'>Privacy</a></li>"
            + "".join(f"<li><a href='{h}'>{html.escape(t)}</a></li>" for h, t in self.footer)
            + "</ul></footer>"
            "<script>const MEGA=" + json.dumps(mega) + ";"
            "document.querySelectorAll('#menu .menu').forEach(li=>li.addEventListener('mouseenter',"
            "()=>{const m=document.getElementById('mega');m.innerHTML='';"
            "MEGA[li.dataset.cat].forEach(([h,t])=>{const a=document.createElement('a');"
            "a.href=h;a.textContent=t;m.appendChild(a);});}));</script>"
            "</body></html>"
        )

    def home(self) -> str:
        rng = random.Random(1)
        featured = rng.sample(sorted(self.products), min(8, len(self.products)))
        cards = "".join(self._card(self.products[p]) for p in featured)
        news = "".join(
            f"<li><a href='/blog/{g}'>{html.escape(t)}</a></li>" for g, _, t, _ in self.guides[:4]
        )
        main = (
            "<h1>Welcome to GadgetHall</h1><p>Reviews and prices of the gadgets people ask us "
            "about most, tested by our staff.</p>"
            f"<section><h2>Featured</h2><ul class='cards'>{cards}</ul></section>"
            f"<section><h2>From the guides</h2><ul>{news}</ul></section>"
        )
        return self.page("Home", main)

    def category(self, name: str) -> str:
        number = self.category_ids[name]
        brands = "".join(
            f"<li><a href='/list/{number}/{b}'>{brand}</a></li>"
            for brand, b in self.brand_ids(name).items()
        )
        top = [ids[0] for (cat, _), ids in self.listings.items() if cat == name and ids][:4]
        cards = "".join(self._card(self.products[p]) for p in top)
        label = VOCABULARY[name]["label"]
        main = (
            f"<h1>{label}</h1><section><h2>Brands</h2><ul class='brands'>{brands}</ul></section>"
            f"<section><h2>Best sellers</h2><ul class='cards'>{cards}</ul></section>"
        )
        return self.page(label, main, [("/", "Home")])

    def listing(self, name: str, brand: str, page_number: int) -> str | None:
        ids = self.listings.get((name, brand), [])
        pages = max(1, -(-len(ids) // self.page_size))
        if not 1 <= page_number <= pages:
            return None
        number, b = self.category_ids[name], self.brand_ids(name)[brand]
        chunk = ids[(page_number - 1) * self.page_size : page_number * self.page_size]
        items = "".join(self._card(self.products[p]) for p in chunk)
        pager = "".join(
            f"<li><a href='/list/{number}/{b}?page={n}'>{n}</a></li>"
            for n in range(1, pages + 1)
            if n != page_number
        )
        if page_number < pages:
            pager += f"<li><a href='/list/{number}/{b}?page={page_number + 1}'>Next</a></li>"
        label = VOCABULARY[name]["label"]
        main = (
            f"<h1>{brand} {label.lower()}</h1><p>Page {page_number} of {pages}</p>"
            f"<ul class='products'>{items}</ul><ul class='pager'>{pager}</ul>"
        )
        return self.page(f"{brand} {label}", main, [("/", "Home"), (f"/cat/{number}", label)])

    def product(self, product: Product) -> str:
        number = self.category_ids[product.category]
        b = self.brand_ids(product.category)[product.brand]
        label = VOCABULARY[product.category]["label"]
        paragraphs = "".join(f"<p>{html.escape(line)}</p>" for line in product.text)
        related = "".join(self._card(self.products[r], teaser=False) for r in product.related)
        main = (
            f"<article><h1>{html.escape(product.name)}</h1>{paragraphs}</article>"
            f"<aside><h2>Related</h2><ul class='related'>{related}</ul></aside>"
        )
        crumbs = [("/", "Home"), (f"/cat/{number}", label), (f"/list/{number}/{b}", product.brand)]
        return self.page(product.name, main, crumbs)

    def guide(self, guide_id: int) -> str | None:
        for number, _category, title, paragraphs in self.guides:
            if number == guide_id:
                body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
                main = f"<article><h1>{html.escape(title)}</h1>{body}</article>"
                return self.page(title, main, [("/", "Home"), ("/blog", "Guides")])
        return None

    def blog(self, page_number: int) -> str | None:
        size = 10
        chunk = self.guides[(page_number - 1) * size : page_number * size]
        if not chunk:
            return None
        items = "".join(
            f"<li><a href='/blog/{g}'>{html.escape(t)}</a></li>" for g, _, t, _ in chunk
        )
        more = (
            f"<p><a href='/blog?page={page_number + 1}'>Older guides</a></p>"
            if page_number * size < len(self.guides)
            else ""
        )
        return self.page("Guides", f"<h1>Guides</h1><ul>{items}</ul>{more}", [("/", "Home")])

    def site_map(self) -> str:
        sections = []
        for name, number in self.category_ids.items():
            brands = "".join(
                f"<li><a href='/list/{number}/{b}'>{brand}</a></li>"
                for brand, b in self.brand_ids(name).items()
            )
            label = VOCABULARY[name]["label"]
            sections.append(f"<li><a href='/cat/{number}'>{label}</a><ul>{brands}</ul></li>")
        return self.page("Site map", f"<h1>Site map</h1><ul>{''.join(sections)}</ul>")

    def search(self, query: str, page_number: int) -> str:
        words = [w for w in query.lower().split() if w]
        hits = [
            p.id
            for p in self.products.values()
            if words and all(w in " ".join(p.text).lower() for w in words)
        ]
        chunk = hits[(page_number - 1) * self.search_results : page_number * self.search_results]
        items = "".join(self._card(self.products[p]) for p in chunk)
        more = (
            f"<p><a href='/search?q={'+'.join(words)}&page={page_number + 1}'>More results</a></p>"
            if page_number * self.search_results < len(hits)
            else ""
        )
        main = (
            f"<h1>Search</h1><p>{len(hits)} results for {html.escape(query)}</p>"
            f"<ul class='results'>{items}</ul>{more}"
        )
        return self.page("Search", main, [("/", "Home")])

    def plain(self, title: str) -> str:
        text = "".join(f"<p>{line}</p>" for line in COMMON_LINES[:3])
        return self.page(title, f"<h1>{title}</h1>{text}", [("/", "Home")])

    def _card(self, product: Product, teaser: bool = True) -> str:
        blurb = f"<p>{html.escape(product.text[0][:60])}…</p>" if teaser else ""
        return f"<li><a href='/item/{product.id}'>{html.escape(product.name)}</a>{blurb}</li>"

    # --- Serving ------------------------------------------------------------------------------

    def answer(self, path: str) -> str | None:
        parts = urlsplit(path)
        query = parse_qs(parts.query)
        page_number = (
            int(query.get("page", ["1"])[0]) if query.get("page", ["1"])[0].isdigit() else 0
        )
        segments = [s for s in parts.path.split("/") if s]
        names = {number: name for name, number in self.category_ids.items()}
        if not segments:
            return self.home()
        head, rest = segments[0], segments[1:]
        if head == "cat" and len(rest) == 1 and rest[0].isdigit() and int(rest[0]) in names:
            return self.category(names[int(rest[0])])
        if head == "list" and len(rest) == 2 and all(s.isdigit() for s in rest):
            name = names.get(int(rest[0]))
            brands = {v: k for k, v in self.brand_ids(name).items()} if name else {}
            if name and int(rest[1]) in brands:
                return self.listing(name, brands[int(rest[1])], page_number)
        if (
            head == "item"
            and len(rest) == 1
            and rest[0].isdigit()
            and int(rest[0]) in self.products
        ):
            return self.product(self.products[int(rest[0])])
        if head == "blog" and not rest:
            return self.blog(page_number)
        if head == "blog" and len(rest) == 1 and rest[0].isdigit():
            return self.guide(int(rest[0]))
        if head == "map" and not rest:
            return self.site_map()
        if head == "search" and not rest:
            return self.search(query.get("q", [""])[0], max(page_number, 1))
        if head in {"about", "help", "privacy"} and not rest:
            return self.plain(head.title())
        return None

    def handle(self, request: RequestHandler) -> None:
        body = self.answer(request.path)
        if body is None:
            request.reply(Response("not found", status=404, headers={"Content-Type": "text/plain"}))
        else:
            request.reply(Response(body))

    def serve(self, server: SiteServer) -> None:
        """Answer every path of `server` from this shop (sitemap.xml: 404; robots.txt if set)."""
        server.routes = _AllRoutes(self.handle)
        if self.robots is not None:
            server.robots(self.robots)

    # --- Ground truth -------------------------------------------------------------------------

    def paths(self) -> list[str]:
        """Return every page's path (what a complete crawl would fetch)."""
        found = ["/", "/map", "/about", "/help", "/privacy"]
        found += [f"/cat/{n}" for n in self.category_ids.values()]
        for (name, brand), ids in self.listings.items():
            number, b = self.category_ids[name], self.brand_ids(name)[brand]
            pages = max(1, -(-len(ids) // self.page_size))
            found += [f"/list/{number}/{b}"] + [
                f"/list/{number}/{b}?page={n}" for n in range(1, pages + 1)
            ]
        found += [f"/item/{p}" for p in self.products]
        found += ["/blog"] + [f"/blog?page={n}" for n in range(2, len(self.guides) // 10 + 2)]
        found += [f"/blog/{g}" for g, _, _, _ in self.guides]
        return found


class _AllRoutes(dict):
    def __init__(self, handler) -> None:
        super().__init__()
        self.handler = handler

    def get(self, path, default=None):  # type: ignore[override]
        if path in self:
            return super().get(path)
        if path.startswith(("/robots.txt", "/sitemap.xml")):
            return default
        return self.handler


def build_shop(
    *,
    products_per_brand: tuple[int, int] = (24, 60),
    page_size: int = 12,
    named_share: float = 0.3,
    categories: list[str] | None = None,
    seed: int = 1,
) -> Shop:
    """Generate the shop's content, the same for the same arguments.

    `named_share` of the product names end with the category's noun ("... 480 camera"), as
    many shops name their products; the others are brand, model and number only.
    """
    chosen = list(categories or ORDER)
    rng = random.Random(seed)
    products: dict[int, Product] = {}
    listings: dict[tuple[str, str], list[int]] = {}
    next_id = 1000
    for category in chosen:
        words = VOCABULARY[category]
        names = words.get("names") or ["{brand} {model} {n}"] * len(words["brands"])
        for brand, model, pattern in zip(words["brands"], words["models"], names, strict=True):
            ids = []
            for _ in range(rng.randint(*products_per_brand)):
                next_id += rng.randint(1, 9)
                name = pattern.format(brand=brand, model=model, n=rng.randint(10, 990))
                if "names" not in words and rng.random() < named_share:
                    name = f"{name} {words['noun']}"
                lines = [
                    line.format(name=name, n=rng.randint(2, 60), z=rng.randint(2, 30))
                    for line in words["lines"]
                ]
                lines = lines[:1] + rng.sample(lines[1:], 3) + rng.sample(COMMON_LINES, 3)
                products[next_id] = Product(next_id, category, brand, name, lines)
                ids.append(next_id)
            listings[(category, brand)] = ids
    for ids in listings.values():
        for product_id in ids:
            others = [i for i in ids if i != product_id]
            products[product_id].related = rng.sample(others, min(4, len(others)))
    guides = []
    guide_id = 1
    for category in chosen:
        for title in GUIDES.get(category, []):
            lines = VOCABULARY[category]["lines"][1:]
            paragraphs = [f"{title}: our answer in short."] + rng.sample(lines, 4)
            paragraphs += rng.sample(COMMON_LINES, 2)
            guides.append((guide_id, category, title, paragraphs))
            guide_id += 1
    rng.shuffle(guides)
    return Shop(
        products=products,
        listings=listings,
        guides=guides,
        page_size=page_size,
        categories=chosen,
    )

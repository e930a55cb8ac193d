"""Webclip settings: one module, every knob an env var with a default that works on a laptop.

The embedded defaults need no server: SQLite, a filesystem Celery broker, a file-based cache and
mail written to a local mailbox folder. Production sets DATABASE_URL, CELERY_BROKER_URL,
CACHE_URL and an email provider; `config.checks` refuses a production configuration that
cannot work.
"""

from __future__ import annotations

import os
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("WEBCLIP_VAR_DIR", BASE_DIR / "var"))

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false, yes/no), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}")
    return value


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


# --- Core -------------------------------------------------------------------------------------

DEBUG = env_bool("DEBUG", True)
TESTING = env_bool("WEBCLIP_TESTING", False)
_DEV_SECRET = "dev-only-insecure-secret-key-do-not-use-in-production-0123456789"  # noqa: S105
SECRET_KEY = env_str("SECRET_KEY") or (_DEV_SECRET if DEBUG or TESTING else "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
SITE_NAME = env_str("SITE_NAME", "Webclip")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.syndication",
    "allauth",
    "allauth.account",
    "anymail",
    "csp",
    "django_celery_beat",
    "accounts",
    "clipping",
    "crawler",
    "ops",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.context_processors.site",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------------

DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'webclip.sqlite3'}")
try:
    _db = environ.Env.db_url_config(DATABASE_URL)
except Exception as exc:  # django-environ raises several types for a malformed URL
    raise ImproperlyConfigured(f"DATABASE_URL is not a database URL: {exc}") from exc
if _db["ENGINE"] == "django.db.backends.sqlite3":
    # WAL and IMMEDIATE transactions let web, worker and beat share one SQLite file.
    _db["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
else:
    _db["CONN_MAX_AGE"] = env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0)
    _db["CONN_HEALTH_CHECKS"] = True
if TESTING:
    # Several test runs may share one PostgreSQL server; each process gets its own test database.
    _db["TEST"] = {"NAME": f"test_webclip_{os.getpid()}"}
DATABASES = {"default": _db}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache (rate limits and the keyword index version live here) -------------------------------

CACHE_URL = env_str("CACHE_URL", f"filecache://{VAR_DIR / 'cache'}")
try:
    _cache = environ.Env.cache_url_config(CACHE_URL)
except Exception as exc:
    raise ImproperlyConfigured(f"CACHE_URL is not a cache URL: {exc}") from exc
_cache["KEY_PREFIX"] = env_str("CACHE_KEY_PREFIX", "webclip")
if TESTING and _cache["BACKEND"].endswith("RedisCache") and os.environ.get("PYTEST_XDIST_WORKER"):
    # Parallel test processes each get their own Redis database, so clearing one never hits another.
    _worker = int(os.environ["PYTEST_XDIST_WORKER"].removeprefix("gw") or 0)
    _cache["LOCATION"] = _cache["LOCATION"].rsplit("/", 1)[0] + f"/{10 + _worker}"
CACHES = {"default": _cache}

# --- Auth and accounts (django-allauth) --------------------------------------------------------

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
if TESTING:
    # Hashing cost is not what the tests measure.
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "dashboard"
ACCOUNT_LOGOUT_REDIRECT_URL = "home"
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_USER_MODEL_USERNAME_FIELD = None
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_CHANGE_EMAIL = True
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_LOGOUT_ON_GET = False
ACCOUNT_EMAIL_SUBJECT_PREFIX = f"[{SITE_NAME}] "
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if SITE_URL.startswith("https") else "http"
ACCOUNT_RATE_LIMITS = {
    "login": env_str("RATE_LIMIT_LOGIN", "30/m/ip"),
    "login_failed": env_str("RATE_LIMIT_LOGIN_FAILED", "10/m/ip,5/5m/key"),
    "signup": env_str("RATE_LIMIT_SIGNUP", "20/m/ip"),
    "reset_password": env_str("RATE_LIMIT_RESET_PASSWORD", "20/m/ip,5/m/key"),
    "reset_password_from_key": "20/m/ip",
    "confirm_email": env_str("RATE_LIMIT_CONFIRM_EMAIL", "1/3m/key"),
    "change_password": "5/m/user",
    "manage_email": "10/m/user",
    "reauthenticate": "10/m/user",
}

# --- Internationalisation ----------------------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

# --- Static files ------------------------------------------------------------------------------

STATIC_URL = "/static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG or TESTING
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- Security headers --------------------------------------------------------------------------

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Sessions are read from the shared cache and written through to the database: no session
# query on most requests, and nobody is logged out when the cache is flushed.
SESSION_ENGINE = env_str("SESSION_ENGINE", "django.contrib.sessions.backends.cached_db")
SESSION_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# --- Email -------------------------------------------------------------------------------------
# EMAIL_PROVIDER: "file" (default: a local mailbox folder, read with `manage.py mailbox` or at
# /mailbox/ while DEBUG), "console", "locmem" (tests), "smtp", or any django-anymail ESP name
# ("mailgun", "postmark", "sendgrid", "amazon_ses", "brevo", "mailjet", "resend", ...). ESP
# settings come from ANYMAIL_* env vars, e.g. ANYMAIL_MAILGUN_API_KEY.

EMAIL_PROVIDER = env_str("EMAIL_PROVIDER", "file").strip().lower()
_BUILTIN_EMAIL = {
    "file": "django.core.mail.backends.filebased.EmailBackend",
    "console": "django.core.mail.backends.console.EmailBackend",
    "locmem": "django.core.mail.backends.locmem.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
}
EMAIL_BACKEND = _BUILTIN_EMAIL.get(
    EMAIL_PROVIDER, f"anymail.backends.{EMAIL_PROVIDER}.EmailBackend"
)
EMAIL_FILE_PATH = str(Path(env_str("EMAIL_FILE_PATH", str(VAR_DIR / "mailbox"))))
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 20, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", f"{SITE_NAME} <webclip@localhost>")
SERVER_EMAIL = env_str("SERVER_EMAIL", DEFAULT_FROM_EMAIL)
ANYMAIL = {
    key.removeprefix("ANYMAIL_"): value
    for key, value in os.environ.items()
    if key.startswith("ANYMAIL_")
}
ANYMAIL.setdefault("REQUESTS_TIMEOUT", EMAIL_TIMEOUT)

# --- Celery ------------------------------------------------------------------------------------

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
if TESTING and CELERY_BROKER_URL.startswith("redis://") and os.environ.get("PYTEST_XDIST_WORKER"):
    # Parallel test processes each get their own broker database, so their queues never mix.
    _worker = int(os.environ["PYTEST_XDIST_WORKER"].removeprefix("gw") or 0)
    CELERY_BROKER_URL = CELERY_BROKER_URL.rsplit("/", 1)[0] + f"/{3 + _worker}"
    # Celery prefers the CELERY_BROKER_URL environment variable to any setting: keep them equal.
    os.environ["CELERY_BROKER_URL"] = CELERY_BROKER_URL
CELERY_BROKER_VISIBILITY_TIMEOUT = env_int("CELERY_BROKER_VISIBILITY_TIMEOUT", 3600, minimum=60)
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
    "visibility_timeout": CELERY_BROKER_VISIBILITY_TIMEOUT
}
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    CELERY_BROKER_TRANSPORT_OPTIONS.update(
        {
            "data_folder_in": str(_broker_dir / "queue"),
            "data_folder_out": str(_broker_dir / "queue"),
            "processed_folder": str(_broker_dir / "processed"),
            "control_folder": str(_broker_dir / "control"),
            "store_processed": False,
        }
    )
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Both limits stay below the visibility timeout so a redelivery never races a live task.
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 1500, minimum=10)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 1800, minimum=10)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = {
    "crawler.tasks.render_*": {"queue": "render"},
    "crawler.tasks.*": {"queue": "crawl"},
    "clipping.tasks.*": {"queue": "publish"},
}
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = "UTC"
CELERY_WORKER_ENABLE_REMOTE_CONTROL = not CELERY_BROKER_URL.startswith("filesystem://")

# --- Webclip -----------------------------------------------------------------------------------

WEBCLIP_NLTK_DATA = env_str("WEBCLIP_NLTK_DATA", str(VAR_DIR / "nltk_data"))
os.environ.setdefault("WEBCLIP_NLTK_DATA", WEBCLIP_NLTK_DATA)
WEBCLIP_ADMIN_EMAIL = env_str("WEBCLIP_ADMIN_EMAIL", "admin@example.com")

# --- Crawl runs (crawler/conf.py) ---------------------------------------------------------------
# Fetches in flight per run (politeness per host is the fetcher's), the wall-clock cap of one run
# (below CELERY_TASK_SOFT_TIME_LIMIT), how long a run may go without a heartbeat before another
# worker takes the site over, the newest versions per page that keep their body, links kept per page.
CRAWLER_RUN_CONCURRENCY = env_int("CRAWLER_RUN_CONCURRENCY", 16, minimum=1)
CRAWLER_RUN_SECONDS = env_int("CRAWLER_RUN_SECONDS", 1200, minimum=10)
CRAWLER_HEARTBEAT_TIMEOUT = env_int("CRAWLER_HEARTBEAT_TIMEOUT", 300, minimum=5)
CRAWLER_VERSIONS_KEPT = env_int("CRAWLER_VERSIONS_KEPT", 10, minimum=1)
CRAWLER_MAX_LINKS_PER_PAGE = env_int("CRAWLER_MAX_LINKS_PER_PAGE", 1000, minimum=1)

# --- Fetching (crawler/fetch/policy.py) ----------------------------------------------------------
CRAWLER_USER_AGENT = env_str("CRAWLER_USER_AGENT", "WebclipBot/0.1 (+https://example.invalid/bot)")
CRAWLER_CONCURRENCY = env_int("CRAWLER_CONCURRENCY", 16, minimum=1)
CRAWLER_MAX_BODY_BYTES = env_int("CRAWLER_MAX_BODY_BYTES", 5 * 1024 * 1024, minimum=1024)
CRAWLER_CONNECT_TIMEOUT = env_float("CRAWLER_CONNECT_TIMEOUT", 10.0)
CRAWLER_READ_TIMEOUT = env_float("CRAWLER_READ_TIMEOUT", 15.0)
CRAWLER_TOTAL_TIMEOUT = env_float("CRAWLER_TOTAL_TIMEOUT", 30.0)
CRAWLER_MAX_REDIRECTS = env_int("CRAWLER_MAX_REDIRECTS", 5, minimum=1)
CRAWLER_ROBOTS_TTL = env_float("CRAWLER_ROBOTS_TTL", 86400.0)
CRAWLER_RETRIES = env_int("CRAWLER_RETRIES", 2, minimum=0)
CRAWLER_MAX_RETRY_WAIT = env_float("CRAWLER_MAX_RETRY_WAIT", 60.0)
CRAWLER_MAX_CRAWL_DELAY = env_float("CRAWLER_MAX_CRAWL_DELAY", 60.0)
CRAWLER_CHROMIUM_PATH = env_str("CRAWLER_CHROMIUM_PATH", "/usr/bin/chromium")
CRAWLER_RENDER_TIMEOUT = env_float("CRAWLER_RENDER_TIMEOUT", 20.0)
CRAWLER_RENDER_CONCURRENCY = env_int("CRAWLER_RENDER_CONCURRENCY", 2, minimum=1)

# --- Hidden web (crawler/hiddenweb/conf.py) -------------------------------------------------------
# Search forms searched with users' keywords during each crawl run (HiWE, He et al.): the least
# rapidfuzz similarity of a form label to an LVS label, the ranking of value assignments (fuzzy,
# average, probabilistic), Smax submissions per form per run, alpha fewest elements, the
# similarity to a "no results" page that makes an answer empty, the prevalence above which a
# query segment is presentation, result link depth, result-list pages walked, nonsense probes,
# second-level URLs fetched per form, visual labels from Chromium, the share of the run's time.
DEEPWEB_ENABLED = env_bool("DEEPWEB_ENABLED", True)
DEEPWEB_LABEL_THRESHOLD = env_float("DEEPWEB_LABEL_THRESHOLD", 0.8)
DEEPWEB_RANKING = env_str("DEEPWEB_RANKING", "fuzzy")
DEEPWEB_SMAX = env_int("DEEPWEB_SMAX", 50, minimum=1)
DEEPWEB_ALPHA = env_int("DEEPWEB_ALPHA", 1, minimum=1)
DEEPWEB_EMPTY_THRESHOLD = env_float("DEEPWEB_EMPTY_THRESHOLD", 0.85)
DEEPWEB_DEDUP_PREVALENCE = env_float("DEEPWEB_DEDUP_PREVALENCE", 0.1)
DEEPWEB_RESULT_DEPTH = env_int("DEEPWEB_RESULT_DEPTH", 1, minimum=0)
DEEPWEB_RESULT_PAGES = env_int("DEEPWEB_RESULT_PAGES", 5, minimum=1)
DEEPWEB_PROBES = env_int("DEEPWEB_PROBES", 2, minimum=1)
DEEPWEB_SECOND_LEVEL = env_int("DEEPWEB_SECOND_LEVEL", 100, minimum=0)
DEEPWEB_BROWSER_LABELS = env_bool("DEEPWEB_BROWSER_LABELS", True)
DEEPWEB_TIME_SHARE = env_float("DEEPWEB_TIME_SHARE", 0.5)

# --- xCrawl (crawler/strategies/xcrawl/config.py) ----------------------------------------------
# Every XCRAWL_<NAME> variable overrides the field <name> of XcrawlSettings (the paper's defaults);
# values are checked and cast there, so a bad one stops start-up with a clear error.
globals().update({key: value for key, value in os.environ.items() if key.startswith("XCRAWL_")})

# --- Publishing (clipping/conf.py) --------------------------------------------------------------
# Instant mails per user and clock hour before the rest of the hour goes in one hourly digest;
# how long a send may hold its claim before another worker takes it over (longer than any send);
# how long an unclaimed instant match waits before the periodic sweep re-queues it; the estimated
# text overlap that makes a clip a duplicate of an earlier story; clips per page and feed entries;
# Celery retries of a failed send (exponential backoff from BACKOFF seconds up to BACKOFF_MAX).
CLIPPING_INSTANT_MAILS_PER_HOUR = env_int("CLIPPING_INSTANT_MAILS_PER_HOUR", 20, minimum=1)
CLIPPING_CLAIM_TIMEOUT = env_int("CLIPPING_CLAIM_TIMEOUT", 600, minimum=60)
CLIPPING_STALLED_AFTER = env_int("CLIPPING_STALLED_AFTER", 120, minimum=10)
CLIPPING_DUPLICATE_THRESHOLD = env_float("CLIPPING_DUPLICATE_THRESHOLD", 0.85)
CLIPPING_PAGE_SIZE = env_int("CLIPPING_PAGE_SIZE", 20, minimum=1)
CLIPPING_FEED_ITEMS = env_int("CLIPPING_FEED_ITEMS", 50, minimum=1)
CLIPPING_SEND_MAX_RETRIES = env_int("CLIPPING_SEND_MAX_RETRIES", 8, minimum=0)
CLIPPING_SEND_RETRY_BACKOFF = env_int("CLIPPING_SEND_RETRY_BACKOFF", 30, minimum=1)
CLIPPING_SEND_RETRY_BACKOFF_MAX = env_int("CLIPPING_SEND_RETRY_BACKOFF_MAX", 3600, minimum=1)
# Each worker's keyword index applies list changes at most this often (seconds); compiled term
# lines are shared between workers through the cache for LINE_CACHE_SECONDS.
CLIPPING_INDEX_REFRESH_SECONDS = env_float("CLIPPING_INDEX_REFRESH_SECONDS", 10.0)
CLIPPING_INDEX_LINE_CACHE_SECONDS = env_int(
    "CLIPPING_INDEX_LINE_CACHE_SECONDS", 30 * 86400, minimum=60
)
# A new or edited list is matched against the pages fetched in the last BACKFILL_DAYS days (0 turns
# this off), newest first, analysing at most MAX_PAGES pages and making at most MAX_MATCHES matches.
CLIPPING_BACKFILL_DAYS = env_float("CLIPPING_BACKFILL_DAYS", 7.0)
CLIPPING_BACKFILL_MAX_PAGES = env_int("CLIPPING_BACKFILL_MAX_PAGES", 500, minimum=0)
CLIPPING_BACKFILL_MAX_MATCHES = env_int("CLIPPING_BACKFILL_MAX_MATCHES", 20, minimum=0)

# --- Logging -----------------------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

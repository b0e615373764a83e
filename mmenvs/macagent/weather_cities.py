"""The cities MacAgent knows weather for: name, region, country, coordinates, time zone and climate
normals. The sim's forecast model (``backends/sim/apps/forecast.py``) draws its weather from these rows;
the ``weather_forecast`` getter looks a city's coordinates up here to ask the Open-Meteo API, on the sim
(which answers that API) or on a real guest (where curl reaches the real one). No backend owns it."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote_plus
from zoneinfo import ZoneInfo


@dataclass(frozen=True)
class City:
    """A city MacAgent has weather for: place, coordinates, time zone and climate normals."""

    name: str
    region: str
    country: str
    lat: float
    lon: float
    tz: str
    jan_high: float  # normal daily high in January, °C
    jul_high: float  # … in July
    spread: float  # normal high − low, °C
    wet_jan: float  # chance of a wet day in January
    wet_jul: float  # … in July

    @property
    def key(self) -> str:
        return self.name.lower()

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.tz)


_CITY_ROWS = """\
San Francisco|California|United States|37.7749|-122.4194|America/Los_Angeles|14|21|8|0.35|0.02
Cupertino|California|United States|37.3230|-122.0322|America/Los_Angeles|15|28|13|0.33|0.01
Los Angeles|California|United States|34.0522|-118.2437|America/Los_Angeles|20|29|10|0.20|0.01
Seattle|Washington|United States|47.6062|-122.3321|America/Los_Angeles|8|26|8|0.60|0.10
Denver|Colorado|United States|39.7392|-104.9903|America/Denver|7|32|15|0.15|0.30
Austin|Texas|United States|30.2672|-97.7431|America/Chicago|17|35|12|0.20|0.15
Chicago|Illinois|United States|41.8781|-87.6298|America/Chicago|0|29|9|0.35|0.30
New York|New York|United States|40.7128|-74.0060|America/New_York|4|29|8|0.35|0.35
Boston|Massachusetts|United States|42.3601|-71.0589|America/New_York|2|28|9|0.35|0.30
Miami|Florida|United States|25.7617|-80.1918|America/New_York|24|33|7|0.20|0.55
Honolulu|Hawaii|United States|21.3069|-157.8583|Pacific/Honolulu|27|31|7|0.30|0.20
Toronto|Ontario|Canada|43.6532|-79.3832|America/Toronto|-1|27|9|0.40|0.30
Vancouver|British Columbia|Canada|49.2827|-123.1207|America/Vancouver|7|22|7|0.60|0.15
Mexico City|Mexico City|Mexico|19.4326|-99.1332|America/Mexico_City|22|23|13|0.10|0.70
Lima|Lima|Peru|-12.0464|-77.0428|America/Lima|26|19|6|0.02|0.05
São Paulo|São Paulo|Brazil|-23.5505|-46.6333|America/Sao_Paulo|28|22|9|0.60|0.20
Buenos Aires|Buenos Aires|Argentina|-34.6037|-58.3816|America/Argentina/Buenos_Aires|30|15|9|0.30|0.20
Reykjavik|Capital Region|Iceland|64.1466|-21.9426|Atlantic/Reykjavik|2|14|5|0.60|0.45
Dublin|Leinster|Ireland|53.3498|-6.2603|Europe/Dublin|8|20|6|0.55|0.45
London|England|United Kingdom|51.5074|-0.1278|Europe/London|8|24|7|0.50|0.35
Paris|Île-de-France|France|48.8566|2.3522|Europe/Paris|7|26|8|0.45|0.30
Amsterdam|North Holland|Netherlands|52.3676|4.9041|Europe/Amsterdam|6|22|7|0.55|0.40
Berlin|Berlin|Germany|52.5200|13.4050|Europe/Berlin|3|25|8|0.45|0.40
Zurich|Zurich|Switzerland|47.3769|8.5417|Europe/Zurich|3|25|9|0.40|0.45
Madrid|Madrid|Spain|40.4168|-3.7038|Europe/Madrid|10|32|13|0.20|0.05
Rome|Lazio|Italy|41.9028|12.4964|Europe/Rome|12|31|11|0.30|0.05
Stockholm|Stockholm|Sweden|59.3293|18.0686|Europe/Stockholm|0|23|7|0.45|0.35
Oslo|Oslo|Norway|59.9139|10.7522|Europe/Oslo|-1|22|8|0.45|0.40
Athens|Attica|Greece|37.9838|23.7275|Europe/Athens|13|33|9|0.30|0.02
Istanbul|Istanbul|Türkiye|41.0082|28.9784|Europe/Istanbul|9|28|7|0.50|0.10
Cairo|Cairo|Egypt|30.0444|31.2357|Africa/Cairo|19|35|13|0.03|0.00
Nairobi|Nairobi|Kenya|-1.2921|36.8219|Africa/Nairobi|25|22|12|0.15|0.10
Cape Town|Western Cape|South Africa|-33.9249|18.4241|Africa/Johannesburg|27|18|10|0.10|0.45
Dubai|Dubai|United Arab Emirates|25.2048|55.2708|Asia/Dubai|24|41|10|0.05|0.00
Mumbai|Maharashtra|India|19.0760|72.8777|Asia/Kolkata|30|30|8|0.00|0.85
Delhi|Delhi|India|28.7041|77.1025|Asia/Kolkata|20|35|10|0.08|0.50
Bangkok|Bangkok|Thailand|13.7563|100.5018|Asia/Bangkok|32|33|8|0.05|0.60
Singapore|Singapore|Singapore|1.3521|103.8198|Asia/Singapore|30|31|7|0.50|0.40
Hong Kong|Hong Kong|Hong Kong|22.3193|114.1694|Asia/Hong_Kong|19|32|5|0.15|0.60
Shanghai|Shanghai|China|31.2304|121.4737|Asia/Shanghai|8|32|7|0.30|0.45
Beijing|Beijing|China|39.9042|116.4074|Asia/Shanghai|2|31|11|0.05|0.50
Seoul|Seoul|South Korea|37.5665|126.9780|Asia/Seoul|2|29|9|0.12|0.60
Tokyo|Tokyo|Japan|35.6762|139.6503|Asia/Tokyo|10|30|7|0.15|0.40
Sydney|New South Wales|Australia|-33.8688|151.2093|Australia/Sydney|26|17|8|0.40|0.30
Melbourne|Victoria|Australia|-37.8136|144.9631|Australia/Melbourne|26|14|10|0.25|0.45
Auckland|Auckland|New Zealand|-36.8485|174.7633|Pacific/Auckland|24|15|7|0.30|0.60"""


def _parse_cities() -> tuple[City, ...]:
    out = []
    for line in _CITY_ROWS.splitlines():
        n, r, c, lat, lon, tz, jan, jul, spread, wj, wl = line.split("|")
        out.append(City(n, r, c, float(lat), float(lon), tz, float(jan), float(jul), float(spread), float(wj), float(wl)))
    return tuple(out)


CITIES: tuple[City, ...] = _parse_cities()
_BY_KEY = {c.key: c for c in CITIES}
_ALIASES = {"sf": "san francisco", "nyc": "new york", "new york city": "new york", "la": "los angeles",
            "sao paulo": "são paulo", "reykjavík": "reykjavik", "zürich": "zurich",
            "sfo": "san francisco", "jfk": "new york", "lhr": "london", "cdg": "paris", "hnd": "tokyo"}


def find_city(name: str) -> City | None:
    """The city called ``name`` (case-insensitive; a few common short forms and airport codes too)."""
    k = " ".join(unquote_plus(name).replace("_", " ").replace("-", " ").split()).lower().lstrip("~")
    k = k.split(",")[0].strip()
    k = _ALIASES.get(k, k)
    return _BY_KEY.get(k)


def search_cities(query: str) -> list[City]:
    """Cities whose name, region or country contains ``query`` (name-prefix matches first)."""
    q = query.strip().lower()
    if not q:
        return []
    hits = [c for c in CITIES if q in c.name.lower() or q in c.country.lower() or q in c.region.lower()]
    return sorted(hits, key=lambda c: (not c.name.lower().startswith(q), c.name))

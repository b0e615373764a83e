"""Vocabulary the renderers sample facts from: people, companies, places, products, dishes, events.

Plain Python data so it ships with the package and costs nothing to load. Everything here is
fictional (made-up businesses and people); phone numbers use the 555-01xx range reserved for fiction.
The lists are deliberately varied (many cultures, trades and price ranges) so that a scenario can
hide its target among plausible look-alikes.
"""

from __future__ import annotations

FIRST_NAMES: tuple[str, ...] = (
    "Amara", "Bilal", "Camille", "Dmitri", "Elena", "Farah", "Gustavo", "Hana", "Ibrahim", "Jasmine",
    "Kenji", "Lucía", "Mateo", "Nadia", "Oluwaseun", "Priya", "Quentin", "Rosa", "Sanjay", "Tamsin",
    "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zofia", "Aiden", "Beatriz", "Chloé", "Darius",
    "Esther", "Finn", "Grace", "Hiroshi", "Ines", "Jonas", "Keiko", "Liam", "Mei", "Noah",
    "Olga", "Pablo", "Rania", "Soren", "Thandiwe", "Ulrich", "Valentina", "Will", "Yara", "Zane",
    "Adaeze", "Bruno", "Carmen", "Deepa", "Emeka", "Fatima", "Gabriel", "Helga", "Isaac", "Jun",
    "Kwame", "Leila", "Marcus", "Nour", "Oscar", "Paulina", "Rafael", "Sofia", "Tomás", "Vera",
)

LAST_NAMES: tuple[str, ...] = (
    "Okafor", "Lindqvist", "Moreau", "Petrov", "Castillo", "Haddad", "Nakamura", "Fernandes", "O'Brien",
    "Kowalski", "Mensah", "Sato", "Gupta", "Bianchi", "Andersen", "Nguyen", "Schmidt", "Rahman",
    "Delgado", "Whitfield", "Abernathy", "Choi", "Dubois", "Esposito", "Friedman", "García", "Hughes",
    "Ivanova", "Jovanović", "Kaur", "Lefèvre", "Mbeki", "Novak", "Oyelaran", "Park", "Quinn", "Rossi",
    "Silva", "Takahashi", "Underwood", "Varga", "Walsh", "Xu", "Yilmaz", "Zimmermann", "Adeyemi",
    "Bergström", "Costa", "Dlamini", "Eriksen", "Fitzgerald", "Hoang", "Iyer", "Jensen", "Kim",
    "Laurent", "Molina", "Nair", "Ortega", "Pereira", "Reyes", "Stewart", "Tanaka", "Vasquez", "Wright",
)

COMPANY_STEMS: tuple[str, ...] = (
    "Northwind", "Bluefern", "Halcyon", "Copperleaf", "Vantage", "Brightwater", "Ironbark", "Meridian",
    "Silverline", "Quillstone", "Redwood", "Lumen", "Tidewell", "Kestrel", "Orchard", "Granite Peak",
    "Sablewood", "Cobalt", "Juniper", "Harborlight", "Foxglove", "Pinecrest", "Alder & Finch", "Stonebridge",
    "Wildrose", "Atlas", "Corvid", "Emberly", "Fairhaven", "Solstice", "Driftwood", "Marigold",
)
COMPANY_SUFFIXES: tuple[str, ...] = (
    "Analytics", "Labs", "Design Studio", "Logistics", "Consulting", "Architects", "Health", "Robotics",
    "Media", "Capital", "Systems", "Biotech", "Legal LLP", "Engineering", "Foods", "Energy", "Partners",
    "Software", "Interiors", "Travel", "Dental Care", "Realty", "Print Co.", "Outfitters",
)

JOB_TITLES: tuple[str, ...] = (
    "Senior Product Manager", "Data Scientist", "Head of Operations", "Marketing Director", "Architect",
    "Account Executive", "Chief Financial Officer", "UX Researcher", "Software Engineer", "Sales Manager",
    "Project Coordinator", "Veterinarian", "Real Estate Agent", "Physiotherapist", "Interior Designer",
    "Attorney at Law", "Photographer", "Event Planner", "Logistics Lead", "Research Scientist",
    "Customer Success Manager", "Brand Strategist", "Structural Engineer", "Pastry Chef", "Founder & CEO",
)

STREET_NAMES: tuple[str, ...] = (
    "Maple", "Harbor", "Elm", "Juniper", "Linden", "Cedar", "Willow", "Bayview", "Prospect", "Orchard",
    "Sycamore", "Chestnut", "Magnolia", "Riverside", "Highland", "Lakeshore", "Foundry", "Mission",
    "Cypress", "Granite", "Meadow", "Union", "Beacon", "Kingsley", "Alder", "Sunset", "Quarry", "Hawthorne",
)
STREET_TYPES: tuple[str, ...] = ("St", "Ave", "Blvd", "Rd", "Lane", "Way", "Dr", "Pl", "Ct", "Terrace")

# (city, state, zip prefix, phone area code)
CITIES: tuple[tuple[str, str, str, str], ...] = (
    ("Portland", "OR", "972", "503"), ("Austin", "TX", "787", "512"), ("Denver", "CO", "802", "303"),
    ("Seattle", "WA", "981", "206"), ("Chicago", "IL", "606", "312"), ("Boston", "MA", "021", "617"),
    ("San Diego", "CA", "921", "619"), ("Minneapolis", "MN", "554", "612"), ("Nashville", "TN", "372", "615"),
    ("Savannah", "GA", "314", "912"), ("Tucson", "AZ", "857", "520"), ("Madison", "WI", "537", "608"),
    ("Burlington", "VT", "054", "802"), ("Santa Fe", "NM", "875", "505"), ("Asheville", "NC", "288", "828"),
    ("Pittsburgh", "PA", "152", "412"), ("Oakland", "CA", "946", "510"), ("Boise", "ID", "837", "208"),
    ("Richmond", "VA", "232", "804"), ("Ann Arbor", "MI", "481", "734"),
)

EMAIL_DOMAINS: tuple[str, ...] = ("mailbox.example", "inbox.example", "post.example", "webmail.example")

MERCHANTS: dict[str, tuple[str, ...]] = {
    "grocery": ("Green Basket Market", "FreshWay Grocers", "Corner Pantry", "Harvest Moon Foods", "Daily Greens Co-op"),
    "cafe": ("Bean & Bloom Café", "The Daily Grind", "Little Fox Coffee", "Steam Room Espresso", "Cloud Nine Bakery"),
    "restaurant": ("Trattoria Bellini", "Saffron House", "The Copper Pot", "Umami Noodle Bar", "Casa Verde Cantina"),
    "hardware": ("Ace of Tools Hardware", "Bolt & Beam Supply", "Handy Harry's", "Ridgeline Home Center"),
    "pharmacy": ("CarePlus Pharmacy", "Main Street Drug", "WellSpring Chemists"),
    "bookstore": ("Dog-Eared Books", "Chapter & Verse", "Paper Lantern Bookshop"),
    "electronics": ("Circuit City Outlet", "VoltMart", "PixelPort Electronics"),
}

# Items a receipt of each merchant type can list: (name, low price, high price)
MERCHANT_ITEMS: dict[str, tuple[tuple[str, float, float], ...]] = {
    "grocery": (
        ("Organic Bananas", 1.2, 3.5), ("Sourdough Loaf", 3.5, 7.0), ("Free-Range Eggs 12ct", 3.9, 7.5),
        ("Oat Milk 1L", 2.5, 4.9), ("Cheddar Block", 3.9, 8.9), ("Avocados 4pk", 3.5, 6.5),
        ("Basmati Rice 2lb", 2.9, 6.9), ("Greek Yogurt", 1.1, 5.9), ("Baby Spinach", 2.5, 4.5),
        ("Chicken Thighs", 5.9, 12.9), ("Olive Oil 500ml", 6.9, 14.5), ("Dark Chocolate Bar", 1.9, 4.9),
        ("Roma Tomatoes", 1.5, 3.9), ("Ground Coffee 12oz", 7.5, 13.9), ("Sparkling Water 6pk", 3.9, 6.9),
        ("Pasta Fusilli", 1.3, 3.2), ("Honeycrisp Apples", 2.9, 6.5), ("Tortilla Chips", 2.5, 4.9),
    ),
    "cafe": (
        ("Flat White", 3.8, 5.2), ("Oat Latte", 4.2, 6.0), ("Cold Brew", 3.9, 5.5), ("Matcha Latte", 4.5, 6.2),
        ("Almond Croissant", 3.5, 5.0), ("Blueberry Muffin", 2.9, 4.2), ("Avocado Toast", 8.5, 12.5),
        ("Chai Tea", 3.5, 4.8), ("Banana Bread", 3.2, 4.5), ("Egg & Cheese Bagel", 5.5, 8.0),
    ),
    "restaurant": (
        ("Margherita Pizza", 12.0, 18.0), ("Caesar Salad", 9.0, 14.0), ("Pad Thai", 13.0, 17.5),
        ("Lamb Tagine", 18.0, 26.0), ("Fish Tacos (3)", 12.5, 16.0), ("Mushroom Risotto", 15.0, 22.0),
        ("Sparkling Water", 3.0, 5.0), ("House Red Wine", 8.0, 13.0), ("Tiramisu", 7.0, 10.0),
        ("Garlic Bread", 5.0, 7.5), ("Ramen Tonkotsu", 14.0, 18.0), ("Iced Tea", 2.5, 4.0),
    ),
    "hardware": (
        ("Wood Screws 100pk", 4.9, 9.9), ("Painter's Tape", 3.9, 7.9), ("LED Bulb 4pk", 8.9, 16.9),
        ("Cordless Drill Bit Set", 14.9, 29.9), ("Wall Anchors", 3.5, 6.9), ("Sandpaper Assorted", 5.9, 9.9),
        ("Extension Cord 10ft", 9.9, 19.9), ("Work Gloves", 7.9, 14.9), ("Duct Tape", 4.9, 8.9),
    ),
    "pharmacy": (
        ("Ibuprofen 200mg 50ct", 5.9, 10.9), ("Vitamin D3", 7.9, 14.9), ("Sunscreen SPF 50", 8.9, 16.9),
        ("Toothpaste", 2.9, 6.5), ("Hand Sanitizer", 1.9, 4.9), ("Allergy Relief", 9.9, 18.9),
        ("Bandages 30ct", 3.9, 6.9), ("Lip Balm", 1.5, 4.0),
    ),
    "bookstore": (
        ("Paperback Novel", 12.0, 18.0), ("Hardcover Cookbook", 24.0, 38.0), ("Notebook A5", 6.0, 14.0),
        ("Travel Guide: Portugal", 16.0, 24.0), ("Bookmark Set", 3.0, 6.0), ("Children's Picture Book", 9.0, 17.0),
        ("Fountain Pen", 18.0, 45.0), ("Wall Calendar", 12.0, 19.0),
    ),
    "electronics": (
        ("USB-C Cable 2m", 9.9, 19.9), ("Wireless Mouse", 19.9, 39.9), ("HDMI Adapter", 14.9, 29.9),
        ("Power Bank 10000mAh", 24.9, 49.9), ("Screen Protector", 7.9, 14.9), ("Bluetooth Speaker", 34.9, 79.9),
        ("Memory Card 128GB", 14.9, 29.9), ("Earbuds", 29.9, 89.9),
    ),
}

PAYMENT_METHODS: tuple[str, ...] = ("VISA", "MASTERCARD", "AMEX", "DEBIT", "CASH", "APPLE PAY")

# Catalogue products: category -> list of (base name, brand options, price range, shape, spec templates)
# spec template: (label, low, high, step, unit); a step of 0 means a fixed text value given in `unit`.
PRODUCTS: dict[str, tuple[tuple[str, tuple[str, ...], tuple[float, float], str, tuple[tuple[str, float, float, float, str], ...]], ...]] = {
    "kitchen": (
        ("Ceramic Travel Mug", ("Hearthware", "Kiln & Co"), (14, 32), "mug", (("Capacity", 300, 500, 50, "ml"), ("Weight", 220, 380, 10, "g"))),
        ("Insulated Water Bottle", ("Tidewell", "Summit Gear"), (18, 45), "bottle", (("Capacity", 500, 1000, 250, "ml"), ("Keeps cold", 12, 24, 12, "h"))),
        ("Pour-Over Coffee Kettle", ("Bean Theory", "Hearthware"), (35, 89), "kettle", (("Capacity", 0.8, 1.2, 0.1, "L"), ("Power", 1000, 1500, 100, "W"))),
        ("Chef's Knife 8\"", ("Kiroshi", "Ironbark"), (39, 149), "box", (("Blade length", 20, 21, 1, "cm"), ("Hardness", 56, 61, 1, "HRC"))),
    ),
    "audio": (
        ("Wireless Over-Ear Headphones", ("Sonora", "Quietwave", "Acoustix"), (59, 349), "headphones", (("Battery life", 20, 60, 5, "h"), ("Weight", 220, 320, 5, "g"), ("Bluetooth", 5.0, 5.3, 0.1, ""))),
        ("Portable Speaker", ("Sonora", "Boomleaf"), (29, 199), "speaker", (("Battery life", 8, 24, 2, "h"), ("Output", 10, 40, 5, "W"), ("Water resistance", 0, 0, 0, "IP67"))),
    ),
    "computing": (
        ("Ultralight Laptop 14\"", ("Lumen", "Vantage", "Corvid"), (649, 1899), "laptop", (("RAM", 8, 32, 8, "GB"), ("Storage", 256, 1024, 256, "GB"), ("Weight", 1.1, 1.6, 0.1, "kg"), ("Battery", 10, 20, 1, "h"))),
        ("Mechanical Keyboard", ("Keystone", "Corvid"), (49, 189), "keyboard", (("Switches", 0, 0, 0, "Brown"), ("Keys", 84, 104, 20, ""), ("Weight", 700, 1100, 50, "g"))),
        ("27\" 4K Monitor", ("Vantage", "Pixelia"), (249, 699), "monitor", (("Refresh rate", 60, 144, 12, "Hz"), ("Brightness", 300, 600, 50, "nits"))),
    ),
    "wearables": (
        ("Fitness Smartwatch", ("Pulsar", "Stride"), (79, 399), "watch", (("Battery life", 5, 14, 1, "days"), ("Water resistance", 5, 10, 5, "ATM"), ("Screen", 1.3, 1.9, 0.1, "in"))),
    ),
    "outdoor": (
        ("Hiking Backpack 28L", ("Summit Gear", "Northwind"), (59, 189), "backpack", (("Volume", 22, 40, 2, "L"), ("Weight", 0.7, 1.4, 0.1, "kg"))),
        ("Trail Running Shoes", ("Stride", "Kestrel"), (89, 179), "shoe", (("Drop", 4, 10, 2, "mm"), ("Weight", 240, 320, 5, "g"))),
        ("Camping Lantern", ("Emberly", "Northwind"), (19, 69), "lantern", (("Brightness", 200, 1000, 100, "lm"), ("Runtime", 8, 40, 4, "h"))),
    ),
    "home": (
        ("Desk Lamp", ("Lumen", "Foxglove Home"), (24, 119), "lamp", (("Brightness", 400, 1000, 100, "lm"), ("Color temp", 2700, 6500, 100, "K"))),
        ("Scented Candle", ("Wildrose", "Marigold"), (12, 38), "candle", (("Burn time", 30, 70, 5, "h"), ("Weight", 200, 400, 20, "g"))),
        ("Air Purifier", ("Brightwater", "Halcyon"), (99, 399), "speaker", (("Coverage", 20, 60, 5, "m²"), ("Noise", 22, 50, 2, "dB"))),
    ),
    "beauty": (
        ("Hydrating Face Serum", ("Dewdrop", "Marigold"), (16, 68), "bottle", (("Volume", 30, 50, 10, "ml"), ("SPF", 0, 0, 0, "none"))),
        ("Hair Dryer", ("Solstice", "Halcyon"), (39, 299), "lamp", (("Power", 1200, 2200, 100, "W"), ("Heat settings", 2, 4, 1, ""))),
    ),
}
PRODUCT_ADJECTIVES: tuple[str, ...] = ("Pro", "Lite", "Max", "Classic", "Air", "Plus", "Mini", "X", "Studio", "Go", "2", "3")
PRODUCT_COLORS: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("Midnight Black", (38, 40, 48)), ("Arctic White", (232, 234, 236)), ("Sage Green", (128, 156, 120)),
    ("Ocean Blue", (40, 98, 168)), ("Coral", (236, 112, 94)), ("Sand", (214, 190, 150)), ("Graphite", (90, 94, 102)),
    ("Burgundy", (124, 34, 52)), ("Mustard", (216, 170, 48)), ("Lavender", (170, 150, 206)), ("Teal", (34, 140, 140)),
)

# Dishes per cuisine for menus: (name, description, low price, high price, tags)
CUISINES: dict[str, dict[str, tuple[tuple[str, str, float, float, tuple[str, ...]], ...]]] = {
    "italian": {
        "Antipasti": (
            ("Burrata", "heirloom tomatoes, basil oil, grilled bread", 12, 17, ("V",)),
            ("Arancini", "saffron risotto, mozzarella, arrabbiata", 9, 13, ("V",)),
            ("Calamari Fritti", "lemon aioli, chili flakes", 12, 16, ()),
            ("Carpaccio", "beef, rocket, parmesan, capers", 14, 19, ("GF",)),
        ),
        "Pasta": (
            ("Tagliatelle al Ragù", "slow-cooked beef and pork ragù", 18, 24, ()),
            ("Cacio e Pepe", "pecorino romano, black pepper", 15, 20, ("V",)),
            ("Linguine Vongole", "clams, garlic, white wine, parsley", 21, 28, ()),
            ("Pumpkin Ravioli", "sage brown butter, amaretti", 17, 23, ("V",)),
        ),
        "Secondi": (
            ("Pollo alla Cacciatora", "braised chicken, olives, rosemary", 22, 29, ("GF",)),
            ("Branzino", "whole sea bass, salsa verde", 27, 36, ("GF",)),
            ("Melanzane Parmigiana", "aubergine, tomato, mozzarella", 18, 23, ("V",)),
        ),
        "Dolci": (
            ("Tiramisu", "mascarpone, espresso, cocoa", 8, 11, ("V",)),
            ("Panna Cotta", "vanilla, berry compote", 7, 10, ("V", "GF")),
            ("Affogato", "vanilla gelato, espresso", 6, 8, ("V", "GF")),
        ),
    },
    "japanese": {
        "Small Plates": (
            ("Edamame", "sea salt or spicy garlic", 5, 8, ("VG", "GF")),
            ("Gyoza (6)", "pork and cabbage, ponzu", 8, 11, ()),
            ("Agedashi Tofu", "dashi broth, bonito, scallion", 8, 12, ("V",)),
            ("Karaage", "fried chicken thigh, yuzu mayo", 10, 14, ()),
        ),
        "Ramen": (
            ("Tonkotsu Ramen", "pork broth, chashu, ajitama", 16, 20, ()),
            ("Shoyu Ramen", "chicken broth, soy tare, menma", 15, 19, ()),
            ("Miso Vegetable Ramen", "miso broth, corn, tofu", 15, 18, ("VG",)),
        ),
        "Sushi & Rice": (
            ("Salmon Nigiri (2)", "Scottish salmon", 7, 10, ("GF",)),
            ("Spicy Tuna Roll", "tuna, sriracha mayo, cucumber", 11, 15, ()),
            ("Unagi Don", "grilled eel, tare, rice", 22, 28, ()),
        ),
        "Dessert": (
            ("Mochi Ice Cream (3)", "matcha, black sesame, mango", 7, 9, ("V",)),
            ("Yuzu Cheesecake", "graham crumble", 8, 10, ("V",)),
        ),
    },
    "mexican": {
        "Para Empezar": (
            ("Guacamole & Chips", "avocado, lime, serrano", 9, 13, ("VG", "GF")),
            ("Elote", "grilled corn, cotija, chili", 6, 9, ("V", "GF")),
            ("Queso Fundido", "chorizo, poblano, tortillas", 10, 14, ()),
        ),
        "Tacos": (
            ("Al Pastor", "pork, pineapple, onion, cilantro", 4, 6, ("GF",)),
            ("Baja Fish", "beer-battered cod, cabbage slaw", 5, 7, ()),
            ("Hongos", "roasted mushrooms, salsa macha", 4, 6, ("VG", "GF")),
        ),
        "Platos Fuertes": (
            ("Enchiladas Verdes", "chicken, tomatillo, crema", 16, 21, ("GF",)),
            ("Carne Asada", "skirt steak, beans, rice", 22, 29, ("GF",)),
            ("Chile Relleno", "poblano, oaxaca cheese, ranchero", 15, 19, ("V",)),
        ),
        "Postres": (
            ("Churros", "cinnamon sugar, chocolate", 7, 9, ("V",)),
            ("Tres Leches", "vanilla sponge, cream", 7, 10, ("V",)),
        ),
    },
    "indian": {
        "Starters": (
            ("Samosa Chaat", "chickpeas, tamarind, yogurt", 8, 11, ("V",)),
            ("Paneer Tikka", "tandoor-grilled cottage cheese", 11, 15, ("V", "GF")),
            ("Chicken 65", "curry leaf, chili, garlic", 11, 14, ("GF",)),
        ),
        "Curries": (
            ("Butter Chicken", "tomato, fenugreek, cream", 18, 23, ("GF",)),
            ("Lamb Rogan Josh", "Kashmiri chili, fennel", 20, 26, ("GF",)),
            ("Chana Masala", "chickpeas, ginger, amchur", 14, 18, ("VG", "GF")),
            ("Palak Paneer", "spinach, cottage cheese", 16, 20, ("V", "GF")),
        ),
        "Breads & Rice": (
            ("Garlic Naan", "tandoor-baked", 4, 6, ("V",)),
            ("Jeera Rice", "cumin basmati", 4, 6, ("VG", "GF")),
            ("Vegetable Biryani", "saffron, fried onion, raita", 16, 20, ("V", "GF")),
        ),
        "Sweets": (
            ("Gulab Jamun", "cardamom syrup", 6, 8, ("V",)),
            ("Mango Kulfi", "pistachio", 6, 8, ("V", "GF")),
        ),
    },
}
RESTAURANT_NAMES: dict[str, tuple[str, ...]] = {
    "italian": ("Trattoria Bellini", "Osteria del Ponte", "Nonna Rosa", "Il Girasole"),
    "japanese": ("Umami Noodle Bar", "Kaze Izakaya", "Hoshi Sushi", "Ramen Tanuki"),
    "mexican": ("Casa Verde Cantina", "La Paloma Taquería", "El Nopal", "Cielo Cocina"),
    "indian": ("Saffron House", "Masala Junction", "The Spice Route", "Chai & Chaat"),
}

EVENT_KINDS: dict[str, dict[str, tuple[str, ...]]] = {
    "concert": {
        "titles": ("Midnight Echoes Live", "The Velvet Comets", "Neon Harbor Tour", "Saltwater Strings", "Brass Lanterns"),
        "subtitles": ("with special guest Juniper Vale", "album release show", "one night only", "acoustic set"),
        "venues": ("The Foundry Hall", "Riverside Amphitheater", "Blue Room Club", "Orpheum Theatre"),
    },
    "conference": {
        "titles": ("DataOps Summit", "Future of Health Forum", "Open Source Days", "Climate Tech Expo", "Design Systems Conf"),
        "subtitles": ("talks · workshops · networking", "two days of hands-on sessions", "keynotes from industry leaders"),
        "venues": ("Harborview Convention Center", "Meridian Hotel Ballroom", "Innovation Hub", "City Conference Hall"),
    },
    "community": {
        "titles": ("Spring Farmers Market", "Neighborhood Cleanup Day", "Community Potluck", "Charity 5K Fun Run", "Book Swap Afternoon"),
        "subtitles": ("bring the whole family", "free coffee & snacks", "all proceeds go to the food bank", "rain or shine"),
        "venues": ("Maple Park Pavilion", "Central Library Plaza", "Lakeside Commons", "Eastside Rec Center"),
    },
    "workshop": {
        "titles": ("Intro to Pottery", "Sourdough Baking Class", "Watercolor for Beginners", "Bike Repair Basics", "Urban Sketching Walk"),
        "subtitles": ("all materials included", "limited to 12 people", "no experience needed"),
        "venues": ("Clay Collective Studio", "The Bread Lab", "Canvas & Co.", "Spoke Street Workshop"),
    },
    "theatre": {
        "titles": ("A Midsummer Night's Dream", "The Glass Menagerie", "Waiting for Godot", "Little Shop of Horrors"),
        "subtitles": ("presented by the Riverside Players", "a new production", "limited run"),
        "venues": ("Playhouse on Elm", "Grand Lyric Theatre", "Black Box Stage"),
    },
}

AIRLINES: tuple[tuple[str, str], ...] = (
    ("Aurora Air", "AU"), ("Pacific Crest Airways", "PC"), ("Northstar Airlines", "NS"), ("Bluejay Air", "BJ"),
)
AIRPORTS: tuple[tuple[str, str], ...] = (
    ("PDX", "Portland"), ("AUS", "Austin"), ("DEN", "Denver"), ("SEA", "Seattle"), ("ORD", "Chicago"),
    ("BOS", "Boston"), ("SAN", "San Diego"), ("MSP", "Minneapolis"), ("BNA", "Nashville"), ("SFO", "San Francisco"),
    ("JFK", "New York"), ("LHR", "London"), ("CDG", "Paris"), ("NRT", "Tokyo"),
)

# Charts: (title, unit or value kind, category labels, value range)
BAR_TOPICS: tuple[tuple[str, str, tuple[str, ...], tuple[float, float]], ...] = (
    ("Quarterly Revenue by Region", "$K", ("North", "South", "East", "West", "Central"), (120, 980)),
    ("Monthly Active Users", "K users", ("Jan", "Feb", "Mar", "Apr", "May", "Jun"), (40, 260)),
    ("Average Commute Time", "min", ("Bus", "Train", "Car", "Bike", "Walk"), (12, 58)),
    ("Support Tickets by Channel", "tickets", ("Email", "Chat", "Phone", "Social", "Forum"), (35, 420)),
    ("Household Spending", "$", ("Rent", "Groceries", "Transport", "Utilities", "Dining", "Leisure"), (80, 1600)),
    ("Rainfall by Month", "mm", ("Mar", "Apr", "May", "Jun", "Jul", "Aug"), (8, 140)),
    ("Units Sold per Store", "units", ("Downtown", "Airport", "Mall", "Harbor", "Campus"), (150, 2400)),
    ("Survey: Preferred Work Mode", "%", ("Office", "Hybrid", "Remote", "Flexible"), (5, 60)),
)
LINE_TOPICS: tuple[tuple[str, str, tuple[str, ...], tuple[float, float], tuple[str, ...]], ...] = (
    ("Website Visits", "K", ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug"), (12, 95), ("Desktop", "Mobile")),
    ("Average Temperature", "°C", ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"), (8, 31), ("This week", "Last week")),
    ("Stock Price (close)", "$", ("W1", "W2", "W3", "W4", "W5", "W6"), (42, 128), ("ACME", "GLOBEX")),
    ("Electricity Use", "kWh", ("Jan", "Feb", "Mar", "Apr", "May", "Jun"), (180, 620), ("2024", "2025")),
    ("Weekly Running Distance", "km", ("Wk 1", "Wk 2", "Wk 3", "Wk 4", "Wk 5", "Wk 6", "Wk 7"), (10, 52), ("Planned", "Actual")),
)
PIE_TOPICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Monthly Budget", ("Rent", "Food", "Transport", "Savings", "Fun", "Other")),
    ("Market Share 2025", ("Northwind", "Bluefern", "Halcyon", "Vantage", "Others")),
    ("Time Spent on a Workday", ("Meetings", "Coding", "Email", "Review", "Breaks")),
    ("Energy Sources", ("Solar", "Wind", "Hydro", "Gas", "Nuclear")),
    ("Trip Expenses", ("Flights", "Hotel", "Meals", "Tours", "Souvenirs")),
    ("Website Traffic Sources", ("Search", "Direct", "Social", "Email", "Referral")),
)

# Document pages: a kind of document, the columns of its table and how to fill them
DOC_KINDS: tuple[str, ...] = ("memo", "report", "minutes", "notice")
PROJECT_NAMES: tuple[str, ...] = (
    "Project Bluebird", "Harbor Renewal", "Atlas Migration", "Q3 Onboarding", "Greenline Expansion",
    "Falcon Analytics", "Orchard Relaunch", "Sparrow CRM", "Beacon Pilot", "Tidal Payments",
)
DEPARTMENTS: tuple[str, ...] = ("Finance", "Engineering", "Marketing", "Operations", "Human Resources", "Facilities", "Sales", "Legal")
ROOMS: tuple[str, ...] = ("Room 4B", "Cedar Room", "Conference Room 2", "Main Hall", "Room 317", "Lab 12", "Boardroom")

GROCERY_LIST: tuple[str, ...] = (
    "milk", "eggs", "bread", "avocados", "spinach", "coffee beans", "rice", "lemons", "tomatoes", "chicken",
    "pasta", "parmesan", "yogurt", "bananas", "onions", "garlic", "olive oil", "tortillas", "apples", "butter",
    "basil", "oats", "honey", "dish soap", "batteries", "paper towels",
)
TODO_TASKS: tuple[str, ...] = (
    "Call the dentist", "Renew passport", "Pay electricity bill", "Book car service", "Return library books",
    "Send invoice to client", "Pick up dry cleaning", "Water the plants", "Email landlord about the heater",
    "Buy birthday gift for mom", "Cancel gym trial", "Schedule team retro", "Back up laptop", "Order new filters",
    "Update résumé", "Submit expense report",
)

CHAT_APPS: tuple[str, ...] = ("Messages", "Chatter", "WhatsUp", "Signalize")

# Phrases that fill space on images without being facts (ads, legal lines, slogans)
AD_LINES: tuple[str, ...] = (
    "Join our rewards club and save 10% today!", "Scan to rate your visit", "Follow us @shoplocal",
    "Free Wi-Fi for customers", "Now hiring - ask inside", "Gift cards available", "Thank you for shopping local!",
    "Download our app for exclusive deals", "Buy 2 get 1 free on selected items", "Open 7 days a week",
    "Limited time offer - while supplies last", "Recycle this receipt", "Win a trip! Enter at our website",
)
COUPON_LINES: tuple[str, ...] = (
    "COUPON: $5 OFF your next visit over $40", "20% OFF one item - code SAVE20", "FREE coffee with any pastry",
    "BOGO: buy one get one half price", "$3 OFF orders over $25 - code SPRING3",
)
